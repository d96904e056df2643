package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// rewindFixture is a session of two prompts: before the first, 200 files
// hold A (treeA); the first rewrites them all to B (treeB, the tree
// before the second). The turns extra returns for the workspace dir
// follow on the fake provider.
func rewindFixture(t *testing.T, extra func(dir string) []fp.Turn) (dir, home string, srv *fp.Server, treeA, treeB map[string]string) {
	t.Helper()
	dir, home = t.TempDir(), t.TempDir()
	for i := range 200 {
		writeFile(t, filepath.Join(dir, "f", fmt.Sprintf("%03d.txt", i)), "A\n", 0o644)
	}
	treeA = treeOf(t, dir)
	turns := append([]fp.Turn{
		{fp.ToolCall("s1", "run_shell_command", mustJSON(map[string]string{"command": "for f in f/*.txt; do echo B > $f; done; echo B > b-only.txt"}))},
		{fp.Text("one done")},
		{fp.Text("two done")},
	}, extra(dir)...)
	srv = fp.New(t, turns...)
	for i, args := range [][]string{{"-y", "-p", "one: to B"}, {"-y", "--continue", "-p", "two: talk"}} {
		if r := runPlyHome(t, dir, home, srv, args...); r.code != 0 {
			t.Fatalf("prompt %d: exit %d, stderr:\n%s", i+1, r.code, r.stderr)
		}
	}
	treeB = treeOf(t, dir)
	if treeB["b-only.txt"] == "" {
		t.Fatalf("the first prompt did not make B: %v", treeB)
	}
	return dir, home, srv, treeA, treeB
}

// blobOf returns the path in the checkpoint store under home of the
// saved content data.
func blobOf(t *testing.T, home, data string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(data))
	h := hex.EncodeToString(sum[:])
	m, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*", "objects", h[:2], h[2:]))
	if len(m) != 1 {
		t.Fatalf("the store holds %d copies of %q", len(m), data)
	}
	return m[0]
}

// A rewind whose saved content is damaged or missing is refused before
// it changes anything, naming the file and the object.
func TestRewindRefusesDamagedContent(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		damage     func(blob string) error
	}{
		{"flipped bit", "damaged", func(b string) error { return os.WriteFile(b, []byte("a\n"), 0o600) }},
		{"truncated", "damaged", func(b string) error { return os.Truncate(b, 1) }},
		{"missing", "missing", os.Remove},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home, _, _, treeB := rewindFixture(t, func(string) []fp.Turn { return nil })
			blob := blobOf(t, home, "A\n")
			if err := tc.damage(blob); err != nil {
				t.Fatal(err)
			}
			r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code")
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, filepath.Join(dir, "f", "000.txt")) ||
				!strings.Contains(r.stderr, filepath.Base(filepath.Dir(blob))+filepath.Base(blob)) || strings.Contains(r.stdout, "Restored") {
				t.Fatalf("rewind over %s content: exit %d\n%s%s", tc.name, r.code, r.stdout, r.stderr)
			}
			if testing.Verbose() {
				t.Log(r.stderr)
			}
			sameTree(t, "after the refused rewind", treeOf(t, dir), treeB)
			if r := runPlyHome(t, dir, home, nil, "rewind", "--list"); strings.Contains(r.stderr, "interrupted") {
				t.Fatalf("a refused rewind left a journal:\n%s", r.stderr)
			}
		})
	}
}

// A rewind that fails after its first change is recorded all the same:
// --undo puts the files back as they were.
func TestRewindFailingPartWayCanBeUndone(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n", 0o644)
	writeFile(t, filepath.Join(dir, "a.txt"), "A\n", 0o644)
	writeFile(t, filepath.Join(dir, "x"), "a file\n", 0o644)
	srv := fp.New(t,
		// x becomes a directory holding only an ignored file: restoring
		// the file x fails, after a.txt was deleted.
		fp.Turn{fp.ToolCall("s1", "run_shell_command", mustJSON(map[string]string{"command": "rm x a.txt && mkdir x && echo keep > x/keep.log && echo B > b.txt"}))},
		fp.Turn{fp.Text("one done")},
	)
	if r := runPlyHome(t, dir, home, srv, "-y", "-p", "one"); r.code != 0 {
		t.Fatalf("prompt 1: exit %d\n%s", r.code, r.stderr)
	}
	before := treeOf(t, dir)
	r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code")
	if r.code != 1 || !strings.Contains(r.stderr, "ply rewind --undo puts them back") {
		t.Fatalf("rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("the rewind failed before its first change: the test does not test a part-way failure")
	}
	if r := runPlyHome(t, dir, home, nil, "rewind", "--undo"); r.code != 0 {
		t.Fatalf("--undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sameTree(t, "after the undo", treeOf(t, dir), before)
}
