package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
)

// The TUI's /rewind goes through the session's Rewind: the files come back, the
// chat's history is the one before the prompt, the prompt's text is
// handed back for the input box, and the rewind can be undone.
func TestRewindFromTheUI(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	writeFile(t, file, "original\n", 0o644)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", mustJSON(map[string]string{"command": "echo first > notes.txt"}))},
		fp.Turn{fp.Text("one done")},
		fp.Turn{fp.ToolCall("s2", "run_shell_command", mustJSON(map[string]string{"command": "echo second > notes.txt && touch extra.txt"}))},
		fp.Turn{fp.Text("two done")},
	)
	for i, args := range [][]string{{"-y", "-p", "write first"}, {"-y", "--continue", "-p", "write second"}} {
		if r := runPlyHome(t, dir, home, srv, args...); r.code != 0 {
			t.Fatalf("prompt %d: exit %d %s", i+1, r.code, r.stderr)
		}
	}
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	c, _ := testCore(t, dir, env, "--continue", "-p", "x")
	tr, err := session.Load(c.Transcript().Path())
	if err != nil {
		t.Fatal(err)
	}
	tc := c // the session's rewind, as the UI's /rewind calls it

	points, err := tc.Rewinds()
	if err != nil || len(points) != 2 || points[1].Prompt != "write second" || points[1].Changed != 2 {
		t.Fatalf("Rewinds = %+v, %v", points, err)
	}
	if tc.CanUndoRewind() {
		t.Fatal("nothing to undo yet")
	}
	res, err := tc.Rewind(2, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "first\n" {
		t.Errorf("notes.txt = %q after the rewind", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "extra.txt")); err == nil {
		t.Error("extra.txt survived the rewind")
	}
	if res.Prompt != "write second" || !strings.Contains(res.Note, "Restored the files") || strings.Contains(res.Note, "write second") {
		t.Errorf("result %+v", res)
	}
	h := c.Chat().History()
	if len(h) == 0 || len(h) != len(res.History) || !strings.Contains(h[0].Text(), "write first") {
		t.Fatalf("chat history after the rewind: %+v", h)
	}
	for _, m := range h {
		if strings.Contains(m.Text(), "write second") {
			t.Fatalf("the rewound prompt is still in the history")
		}
	}
	if !tc.CanUndoRewind() {
		t.Fatal("the rewind cannot be undone")
	}
	if _, err := tc.Rewind(0, true, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "second\n" {
		t.Errorf("notes.txt = %q after the undo", b)
	}
	if len(c.Chat().History()) != len(tr.History) {
		t.Errorf("history after the undo: %d entries, want %d", len(c.Chat().History()), len(tr.History))
	}
}
