package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxCompletionMenu: typing a slash opens a menu of commands with
// their help lines; arrows move the highlight, Esc closes it, Enter runs
// the highlighted command, which is echoed above its output; an @word
// lists paths and Tab takes one.
func TestTmuxCompletionMenu(t *testing.T) {
	t.Parallel()
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) { t.Parallel(); testTmuxCompletionMenu(t, w) })
	}
}

func testTmuxCompletionMenu(t *testing.T, w int) {
	bin := buildPly(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"src/main.go", "src/model.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fp.New(t)
	x := startPly(t, bin, dir, srv, w, 24, []string{"NO_COLOR=1"})
	x.waitFor("test-model ·")

	x.run("send-keys", "-t", "ply", "-l", "/sta")
	s := x.waitFor("❯ /stats")
	if !strings.Contains(s, "token usage, rounds, tool calls") {
		t.Fatalf("the command's help is not in the menu:\n%s", s)
	}
	x.run("send-keys", "-t", "ply", "Escape")
	x.waitGone("❯ /stats")
	x.run("send-keys", "-t", "ply", "BSpace")
	x.waitFor("❯ /stats") // /st: the menu follows the text
	x.run("send-keys", "-t", "ply", "Enter")
	s = x.waitFor("Session stats:")
	if !strings.Contains(s, "> /stats\nSession stats:") {
		t.Fatalf("the command is not echoed above its output:\n%s", s)
	}

	x.run("send-keys", "-t", "ply", "-l", "read @src/m")
	s = x.waitFor("❯ src/main.go")
	if !strings.Contains(s, "  src/model.go") {
		t.Fatalf("the folder's files are not listed:\n%s", s)
	}
	x.run("send-keys", "-t", "ply", "Down")
	x.waitFor("❯ src/model.go")
	x.run("send-keys", "-t", "ply", "Tab")
	s = x.waitFor("> read @src/model.go")
	x.waitGone("❯ src/model.go")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests: completing sent the prompt", n)
	}
	for i, l := range strings.Split(s, "\n") {
		if len([]rune(l)) > w {
			t.Fatalf("line %d is wider than %d:\n%s", i, w, s)
		}
	}
}
