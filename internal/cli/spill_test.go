package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
)

// A batch too large for the output budget spills its largest output into
// the session's directory, where read_file and grep_search can read it;
// `ply sessions --prune` removes it with the session.
func TestSpilledOutputLivesWithItsSession(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, "line %04d %s\n", i, strings.Repeat("x", 90))
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The command keeps 30 KB of its output (the setting; 16 KB by
	// default), so that it is the batch's largest result.
	writeFile(t, filepath.Join(home, "settings.json"), `{"tools": {"shellOutputLimit": 30000}}`, 0o644)
	const id = "4f1c2e9a-7b3d-4c8e-9a1f-2d3e4f5a6b7c"
	art, err := session.ArtifactDir(home, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	spilled := filepath.Join(art, "tool-output", "run_shell_command-r0.txt")
	// A 30 KB command output and eight reads of 25 KB: past the 200 KB
	// budget, and the command's output is the largest, spilled first.
	batch := fp.Turn{fp.ToolCall("r0", "run_shell_command", `{"command":"cat big.txt"}`)}
	for i := 1; i <= 8; i++ {
		batch = append(batch, fp.ToolCall(fmt.Sprintf("r%d", i), "read_file",
			fmt.Sprintf(`{"file_path":"big.txt","offset":%d,"limit":250}`, i*250)))
	}
	srv := fp.New(t, batch,
		fp.Turn{fp.ToolCall("back", "read_file", mustJSON(map[string]any{"file_path": spilled, "offset": 100, "limit": 2})),
			fp.ToolCall("grep", "grep_search", mustJSON(map[string]any{"pattern": "line 0042", "path": filepath.Dir(spilled)})),
			fp.ToolCall("w", "write_file", mustJSON(map[string]any{"file_path": spilled, "content": "overwritten"}))},
		fp.Turn{fp.Text("done.")})
	r := runPlyHome(t, dir, home, srv, "-y", "--session-id", id, "-p", "read it all")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if got := toolTextIn(t, srv, 1, "r0"); !strings.Contains(got, "saved to "+spilled) {
		t.Fatalf("r0 was not spilled to the session's directory: %.300q…", got)
	}
	if got := toolText(t, srv, "back"); !strings.Contains(got, "line 0098") || strings.Contains(got, "Error") {
		t.Errorf("read_file of the spilled output: %.300q", got)
	}
	if got := toolText(t, srv, "grep"); !strings.Contains(got, "line 0042") {
		t.Errorf("grep_search in the spilled outputs: %.300q", got)
	}
	if got := toolText(t, srv, "w"); !strings.Contains(got, "outside the workspace") {
		t.Errorf("write_file into the session directory: %.300q", got)
	}
	if b, _ := os.ReadFile(spilled); !strings.Contains(string(b), "line 0000") {
		t.Errorf("the spilled output changed: %.100q", b)
	}

	// Pruning with an age the session has not reached keeps it; with
	// every session older than the cutoff it goes, directory included.
	r = runPlyHome(t, dir, home, nil, "sessions", "--prune", "30d")
	if r.code != 0 || !strings.Contains(r.stdout, "No sessions") && !strings.Contains(r.stdout, "0 ") {
		t.Fatalf("prune 30d: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(spilled); err != nil {
		t.Fatalf("a recent session was pruned: %v", err)
	}
	past := time.Now().Add(-31 * 24 * time.Hour)
	if err := os.Chtimes(art+".jsonl", past, past); err != nil {
		t.Fatal(err)
	}
	r = runPlyHome(t, dir, home, nil, "sessions", "--prune", "30d")
	if r.code != 0 || !strings.Contains(r.stdout, id) {
		t.Fatalf("prune 30d: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{art, art + ".jsonl"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived the prune (%v)", p, err)
		}
	}
	if r := runPlyHome(t, dir, home, nil, "sessions", "--prune", "soon"); r.code != 42 {
		t.Errorf("a bad age: exit %d, want 42", r.code)
	}
}

// toolTextIn returns the text of the tool message answering id in request
// n.
func toolTextIn(t *testing.T, srv *fp.Server, n int, id string) string {
	t.Helper()
	for _, m := range srv.Requests()[n].Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.Text()
		}
	}
	t.Fatalf("request %d carries no result for %s", n, id)
	return ""
}
