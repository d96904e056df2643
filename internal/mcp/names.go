package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxToolNameLen is the longest function name the providers accept.
const MaxToolNameLen = 64

// ToolPrefix is how every MCP tool name starts.
const ToolPrefix = "mcp__"

// ToolName returns the ply name of tool on the server whose ID is
// serverID: mcp__<server>__<tool>, with every character outside
// [A-Za-z0-9_-] replaced by '_'. A name longer than MaxToolNameLen keeps
// its first characters and ends with '_' and eight hex digits of a hash of
// the full name, so it stays unique and the same from run to run.
func ToolName(serverID, tool string) string {
	full := ToolPrefix + sanitize(serverID) + "__" + sanitize(tool)
	if len(full) <= MaxToolNameLen {
		return full
	}
	return withHash(full[:MaxToolNameLen-9], ToolPrefix+serverID+"__"+tool)
}

// withHash appends '_' and eight hex digits of the hash of key to head.
func withHash(head, key string) string {
	sum := sha256.Sum256([]byte(key))
	return head + "_" + hex.EncodeToString(sum[:4])
}

// uniqueName returns name, or when it is taken a variant of it that ends
// in a hash of key (the unsanitised server and tool), still within
// MaxToolNameLen.
func uniqueName(name, key string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	head := name
	if len(head) > MaxToolNameLen-9 {
		head = head[:MaxToolNameLen-9]
	}
	for i := 0; ; i++ {
		k := key
		if i > 0 {
			k = key + "#" + string(rune('0'+i%10)) + strings.Repeat("+", i/10)
		}
		if n := withHash(head, k); !taken[n] {
			return n
		}
	}
}

// sanitize replaces every character outside [A-Za-z0-9_-] with '_'.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ServerID is the id a server named name has in tool names: name with
// every character outside [A-Za-z0-9_-] made '_'.
func ServerID(name string) string { return sanitize(name) }
