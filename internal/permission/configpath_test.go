package permission

import (
	"path/filepath"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/sysprompt"
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

// TestAutoEditAsksForInstructionFiles: the instruction files are read as
// the user's own instructions by every later session, so auto-edit does
// not write them unasked, at any depth.
func TestAutoEditAsksForInstructionFiles(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeAutoEdit, nil, nil, nil)
	// A link committed under an innocent name writes what it points to.
	link(t, filepath.Join(root, "AGENTS.md"), filepath.Join(root, "docs/notes.md"))
	link(t, filepath.Join(root, ".ply"), filepath.Join(root, "docs/conf"))
	paths := []string{"GEMINI.md", "src/pkg/AGENTS.md", ".ply/PLY.md", "docs/notes.md", "docs/conf/settings.json"}
	for _, n := range sysprompt.InstructionNames {
		paths = append(paths, n, "src/"+n)
	}
	for _, path := range paths {
		v, reason := p.Check(t.Context(), call(t, ToolEdit, map[string]any{"file_path": path, "old_string": "a", "new_string": "b"}))
		if v != scheduler.VerdictAsk {
			t.Errorf("%s: %v (%s), want ask", path, v, reason)
		}
	}
	for _, path := range []string{"docs/AGENTS.md.bak", "src/agents.go", "README.md"} {
		if v, reason := p.Check(t.Context(), call(t, ToolWriteFile, map[string]any{"file_path": path, "content": "x"})); v != scheduler.VerdictAllow {
			t.Errorf("%s: %v (%s), want allow", path, v, reason)
		}
	}
}
