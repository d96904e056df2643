package permission

import (
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// TestAutoEditAsksForAgentConfig: auto-edit writes workspace files
// unasked, but not the files that would give the next start hooks, rules
// or agents (a prompt injection's way from edits to commands).
func TestAutoEditAsksForAgentConfig(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeAutoEdit, nil, nil, nil)
	for path, want := range map[string]scheduler.Verdict{
		"src/main.go":               scheduler.VerdictAllow,
		"docs/ply.md":               scheduler.VerdictAllow,
		".ply/settings.json":        scheduler.VerdictAsk,
		".ply/agents/x.md":          scheduler.VerdictAsk,
		"sub/.ply/settings.json":    scheduler.VerdictAsk,
		".claude/settings.json":     scheduler.VerdictAsk,
		".qwen/settings.json":       scheduler.VerdictAsk,
		".mcp.json":                 scheduler.VerdictAsk,
		".envrc":                    scheduler.VerdictAsk,
		"notes/.plyx/settings.json": scheduler.VerdictAllow,
	} {
		v, reason := p.Check(t.Context(), call(t, ToolWriteFile, map[string]any{"file_path": path, "content": "x"}))
		if v != want {
			t.Errorf("%s: %v (%s), want %v", path, v, reason, want)
		}
	}
}
