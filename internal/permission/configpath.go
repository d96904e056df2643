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

// isAgentConfig reports whether the resolved path is such configuration.
// auto-edit never writes one unasked: an edit approved by a mode would
// otherwise become hooks or yolo on the next start.
func isAgentConfig(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if agentConfigNames[part] {
			return true
		}
	}
	return false
}

// agentConfig reports whether abs, inside a workspace root, is agent
// configuration below that root.
func (p *Policy) agentConfig(abs string) bool {
	for _, root := range p.ws.Roots() {
		if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") && isAgentConfig(rel) {
			return true
		}
	}
	return false
}
