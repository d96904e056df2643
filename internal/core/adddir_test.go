package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

func TestAddDirTellsTheModelAndTheUser(t *testing.T) {
	base := t.TempDir()
	main, lib := filepath.Join(base, "main"), filepath.Join(base, "lib")
	for _, d := range []string{main, lib} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(main)
	if err != nil {
		t.Fatal(err)
	}
	c := &Session{ws: ws, modes: &modeSync{}, cfg: &Config{Sandbox: Sandbox{Enabled: true}}, cp: &checkpointer{}}
	added, caveats, err := c.AddDir(" ../lib ")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(lib)
	if added != real {
		t.Fatalf("added %q, want %q", added, real)
	}
	if _, err := ws.Resolve(filepath.Join(lib, "a.go")); err != nil {
		t.Fatalf("the new root does not take writes: %v", err)
	}
	all := strings.Join(caveats, "\n")
	for _, want := range []string{"not checkpointed", "--sandbox", "--include-directories " + real} {
		if !strings.Contains(all, want) {
			t.Errorf("caveats lack %q:\n%s", want, all)
		}
	}
	notes := c.modes.TakeReminders()
	if len(notes) != 1 || !strings.Contains(notes[0], "added the directory "+real+" to the workspace") {
		t.Fatalf("the model's next message carries %q", notes)
	}
	if _, _, err := c.AddDir("../lib"); err == nil || !strings.Contains(err.Error(), "already in the workspace") {
		t.Fatalf("adding it twice: %v", err)
	}
	if notes := c.modes.TakeReminders(); len(notes) != 0 {
		t.Fatalf("a refused /add-dir told the model %q", notes)
	}
}
