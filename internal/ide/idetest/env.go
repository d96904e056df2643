package idetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plyhq/ply/internal/ide"
)

// The process tree Env gives: ply (500) in bash (400) under the
// terminal's host (300) under the editor (EditorPID).
const EditorPID = 200

// Start starts a companion whose discovery file, in the shape of the
// Gemini CLI extension's, names the workspace folders ws, and returns it
// with the environment of a ply started in the editor's terminal, working
// in ws[0].
func Start(t testing.TB, ws ...string) (*Companion, ide.Env) {
	t.Helper()
	root := t.TempDir()
	c := New(t)
	tmp := filepath.Join(root, "tmp")
	c.WriteDiscovery(t, filepath.Join(tmp, "gemini", "ide", "gemini-ide-server-200-1.json"), ws, EditorPID)
	env := ide.Env{
		Getenv:  func(string) string { return "" },
		TempDir: tmp, Home: filepath.Join(root, "home"), Cwd: ws[0], PID: 500, UID: os.Getuid(),
		Parent: func(pid int) (int, string, error) {
			switch pid {
			case 500:
				return 400, "ply", nil
			case 400:
				return 300, "bash", nil
			case 300:
				return EditorPID, "code", nil
			}
			return 1, "code", nil
		},
	}
	return c, env
}

// File is an entry of the context's open files; line and sel matter only
// for the active one.
func File(path string, ts int, active bool, line int, sel string) map[string]any {
	f := map[string]any{"path": path, "timestamp": ts}
	if active {
		f["isActive"] = true
		f["cursor"] = map[string]any{"line": line, "character": 3}
		if sel != "" {
			f["selectedText"] = sel
		}
	}
	return f
}
