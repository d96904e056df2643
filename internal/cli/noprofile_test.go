package cli

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestReadOnlyCommandsNeedProfile plays a kernel without Landlock: a
// command judged read-only no longer runs unasked (here, with no one to
// ask, it is refused and the answer says why and how to opt in), unless
// --allow-unsandboxed or the user's own settings accept running such
// commands unconfined. A project's settings cannot.
func TestReadOnlyCommandsNeedProfile(t *testing.T) {
	saved := core.ReadOnlyAvailable
	t.Cleanup(func() { core.ReadOnlyAvailable = saved })
	core.ReadOnlyAvailable = func() error { return errors.New("the kernel was built without Landlock: function not implemented") }

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes.txt"), "content-of-notes\n", 0o644)
	run := func(home string, args ...string) string {
		t.Helper()
		srv := fp.New(t,
			fp.Turn{fp.ToolCall("c1", "run_shell_command", `{"command":"cat notes.txt"}`)},
			fp.Turn{fp.Text("done")},
		)
		if home == "" {
			home = filepath.Join(t.TempDir(), "home")
		}
		r := runPlyHome(t, dir, home, srv, append(args, "-p", "look")...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d; stderr:\n%s", args, r.code, r.stderr)
		}
		return toolAnswer(t, srv, "c1")
	}

	a := run("")
	if strings.Contains(a, "content-of-notes") {
		t.Errorf("the command ran unconfined unasked: %s", a)
	}
	for _, w := range []string{"Landlock", "--allow-unsandboxed", "allowUnsandboxed"} {
		if !strings.Contains(a, w) {
			t.Errorf("the refusal does not mention %s: %s", w, a)
		}
	}
	if a := run("", "--allow-unsandboxed"); !strings.Contains(a, "content-of-notes") {
		t.Errorf("--allow-unsandboxed: the command did not run: %s", a)
	}
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{"allowUnsandboxed": true}`, 0o644)
	if a := run(home); !strings.Contains(a, "content-of-notes") {
		t.Errorf("the user's allowUnsandboxed: the command did not run: %s", a)
	}
	writeFile(t, filepath.Join(dir, ".ply", "settings.json"), `{"allowUnsandboxed": true}`, 0o644)
	if a := run("", "--trust-workspace"); strings.Contains(a, "content-of-notes") {
		t.Errorf("a project's settings opted in: %s", a)
	}
}
