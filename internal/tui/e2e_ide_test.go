package tui_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/ide/idetest"
)

// TestTmuxIDE runs ply in a terminal as VS Code's would run it beside a
// companion extension: it connects (the footer says so), the first
// prompt carries the editor's context, and a write that needs approval
// opens in the editor's diff view, where accepting it with the user's
// own text both runs the call with that text and closes ply's dialog.
func TestTmuxIDE(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	tmp := t.TempDir()
	comp := idetest.New(t)
	const editor = 4242 // GEMINI_CLI_IDE_PID stands for the process-tree walk
	comp.WriteDiscovery(t, filepath.Join(tmp, "gemini", "ide", "gemini-ide-server-"+strconv.Itoa(editor)+"-"+strconv.Itoa(comp.Port)+".json"), []string{dir}, editor)
	active := filepath.Join(dir, "main.go")
	comp.SetContext([]map[string]any{idetest.File(active, 1, true, 5, "the selected line")})
	path := filepath.Join(dir, "notes.txt")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("w1", "write_file", args(map[string]string{"file_path": path, "content": "from the model\n"}))},
		fp.Turn{fp.Text("all written")},
	)
	x := startPly(t, bin, dir, srv, 120, 30, []string{"TMPDIR=" + tmp, "GEMINI_CLI_IDE_PID=" + strconv.Itoa(editor)})
	s := x.waitFor("IDE connected: VS Code")
	if !strings.Contains(s, "default mode · ") || !strings.Contains(s[strings.LastIndex(s, "default mode"):], "IDE connected") {
		t.Fatalf("the footer does not say the IDE is connected:\n%s", s)
	}
	x.submit("write the notes")
	var d idetest.Diff
	select {
	case d = <-comp.Diffs:
	case <-time.After(waitLimit):
		t.Fatalf("no diff opened in the editor; screen:\n%s", x.run("capture-pane", "-p", "-t", "ply"))
	}
	if d.Path != path || d.NewContent != "from the model\n" {
		t.Fatalf("openDiff %+v", d)
	}
	x.waitFor("allow once") // ply's own dialog is open meanwhile
	comp.Accept(path, "edited in the editor\n")
	x.waitFor("all written")
	if got, _ := os.ReadFile(path); string(got) != "edited in the editor\n" {
		t.Fatalf("the file holds %q, want the text accepted in the editor", got)
	}
	if s := x.run("capture-pane", "-p", "-t", "ply"); strings.Contains(s, "allow once") {
		t.Fatalf("ply's dialog stays open after the editor answered:\n%s", s)
	}
	first := srv.Requests()[0].Messages
	if ctx := first[len(first)-1].Text(); !strings.Contains(ctx, "Active file: "+active) || !strings.Contains(ctx, "the selected line") {
		t.Fatalf("the first prompt lacks the editor's context:\n%s", ctx)
	}
}
