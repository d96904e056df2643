package core

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/chat"
)

// lineRange returns lines first..first+n-1 (counted from 1, as read_file
// numbers them) of the file at path.
func lineRange(t *testing.T, path string, first, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if first < 1 || first-1+n > len(lines) {
		t.Fatalf("lines %d-%d of a file of %d", first, first+n-1, len(lines))
	}
	return strings.Join(lines[first-1:first-1+n], "")
}

// Every cut result goes into one file, and the lines a Save names hold
// that text alone, whether or not it ends its last line, in a session
// resumed by another process and after a crash tore the file's end.
func TestSpillFileNamesTheLinesOfEachText(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"tool-result-a": "one\ntwo\nthree\n",
		"tool-result-b": "no newline at the end",
		"tool-result-c": "\n\nblank lines first\r\nand a CR\n",
	}
	ctx := context.Background()
	check := func(s *spillFile, name string) chat.Saved {
		t.Helper()
		at, err := s.Save(ctx, name, texts[name])
		if err != nil {
			t.Fatal(err)
		}
		want := texts[name]
		if !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got := lineRange(t, at.Path, at.Line, at.Lines); got != want {
			t.Errorf("%s: lines %d+%d hold %q, want %q", name, at.Line, at.Lines, got, want)
		}
		return at
	}
	s := newSpillFile(dir)
	a := check(s, "tool-result-a")
	check(s, "tool-result-b")
	if again, err := s.Save(ctx, "tool-result-a", texts["tool-result-a"]); err != nil || again != a {
		t.Errorf("saved again: %+v %v, want %+v", again, err, a)
	}
	s.Close()

	// A crash tore the file's last line.
	f, err := os.OpenFile(a.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("=== tool-result-torn ===\nhalf a li")
	f.Close()

	s = newSpillFile(dir)
	defer s.Close()
	check(s, "tool-result-c")
	check(s, "tool-result-b")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the session's directory, want one", len(entries))
	}
	// What the first process saved is still where it said.
	if got := lineRange(t, a.Path, a.Line, a.Lines); got != texts["tool-result-a"] {
		t.Errorf("the first text moved: %q", got)
	}
}

// BenchmarkSpill saves the full text of cut tool results as a long session
// near its context limit does, one 4 KB result a round.
func BenchmarkSpill(b *testing.B) {
	s := newSpillFile(b.TempDir())
	defer s.Close()
	text := strings.Repeat(strings.Repeat("x", 99)+"\n", 40)
	i := 0
	for b.Loop() {
		if _, err := s.Save(context.Background(), fmt.Sprintf("tool-result-p%d", i), text); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
