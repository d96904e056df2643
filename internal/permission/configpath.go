package permission

import (
	"path/filepath"
	"strings"
)

// agentConfigNames are the names, at any depth, of files and folders that
// make an agent run programs or change its approvals when it next starts:
// ply's own (.ply: settings with hooks, agents) and other agents' that
// ply reads or that the user's other tools run (.envrc runs in direnv).
var agentConfigNames = map[string]bool{
	".ply": true, ".claude": true, ".qwen": true, ".gemini": true, ".mcp.json": true, ".envrc": true,
}

// instructionNames are the names, at any depth, of the files agents load
// as the user's own instructions at every start (sysprompt reads the
// first four from the project root down to the working directory, and
// ~/.ply/PLY.md): text written there speaks with the user's voice to
// every later session.
var instructionNames = []string{"PLY.md", "AGENTS.md", "QWEN.md", "CLAUDE.md", "GEMINI.md"}

// agentConfigWhat says what the resolved path configures, or "" when it
// is not agent configuration. auto-edit never writes such a file
// unasked: an edit approved by a mode would otherwise become hooks, yolo
// or standing instructions on the next start.
func agentConfigWhat(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for _, part := range parts {
		if agentConfigNames[part] || (foldCase && agentConfigNames[strings.ToLower(part)]) {
			return "agent configuration (hooks, rules, agents take effect at the next start)"
		}
	}
	last := parts[len(parts)-1]
	for _, n := range instructionNames {
		if last == n || (foldCase && strings.EqualFold(last, n)) {
			return "an instruction file (every later session reads it as the user's instructions)"
		}
	}
	return ""
}

// agentConfig returns what abs, inside a workspace root, configures
// below that root, or "".
func (p *Policy) agentConfig(abs string) string {
	for _, root := range p.ws.Roots() {
		if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
			if what := agentConfigWhat(rel); what != "" {
				return what
			}
		}
	}
	return ""
}
