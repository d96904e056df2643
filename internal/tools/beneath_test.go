package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteBeneathLinks calls Workspace.writeFile directly, as if a link
// had been put in place after Resolve looked: links are followed only to
// targets inside a root and not into .git, and a refusal names the link
// and the workspace.
func TestWriteBeneathLinks(t *testing.T) {
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			forceWalk(t, walk)
			testWriteBeneathLinks(t)
		})
	}
}

func testWriteBeneathLinks(t *testing.T) {
	ws, err := NewWorkspace(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, second := ws.Roots()[0], ws.Roots()[1]
	outside := t.TempDir()
	ftWriteFile(t, filepath.Join(root, "sub", "real.txt"), "old")
	ftWriteFile(t, filepath.Join(root, "sub2", "keep"), "")
	ftWriteFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	mustSymlink(t, "sub", filepath.Join(root, "dirlink"))
	mustSymlink(t, "../sub/real.txt", filepath.Join(root, "sub2", "filelink"))
	mustSymlink(t, second, filepath.Join(root, "to-second"))
	mustSymlink(t, outside, filepath.Join(root, "out"))
	mustSymlink(t, filepath.Join(outside, "f"), filepath.Join(root, "outfile"))
	mustSymlink(t, ".git", filepath.Join(root, "gitlink"))
	mustSymlink(t, "loop2", filepath.Join(root, "loop1"))
	mustSymlink(t, "loop1", filepath.Join(root, "loop2"))

	ok := []struct{ path, lands string }{
		{"dirlink/new.txt", "sub/new.txt"},
		{"dirlink/deep/er/new.txt", "sub/deep/er/new.txt"},
		{"sub2/filelink", "sub/real.txt"},
		{"to-second/x/y.txt", ""},
	}
	for _, c := range ok {
		if _, err := ws.writeFile(filepath.Join(root, c.path), []byte("new")); err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		lands := filepath.Join(root, c.lands)
		if c.lands == "" {
			lands = filepath.Join(second, "x", "y.txt")
		}
		if got := ftReadFile(t, lands); got != "new" {
			t.Errorf("%s: %s holds %q", c.path, lands, got)
		}
	}
	if fi, err := os.Lstat(filepath.Join(root, "sub2", "filelink")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the final link was replaced: %v", err)
	}

	refused := []struct{ path, want string }{
		{"out/new.txt", "out is a symbolic link to " + outside + ", outside the workspace (" + root + ", " + second + ")"},
		{"outfile", "outfile is a symbolic link to " + filepath.Join(outside, "f") + ", outside the workspace"},
		{"gitlink/config", "into a .git directory"},
		{"loop1", "too many levels of symbolic links"},
		{"sub/real.txt/child", "not a directory"},
		{"sub", "is a directory"},
	}
	for _, c := range refused {
		_, err := ws.writeFile(filepath.Join(root, c.path), []byte("pwned"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.path, err, c.want)
		}
		if strings.Contains(c.want, "outside") && !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("%s: %v is not ErrOutsideWorkspace", c.path, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("%s written outside the workspace", entries[0].Name())
	}
	if got := ftReadFile(t, filepath.Join(root, ".git", "config")); got != "[core]\n" {
		t.Errorf(".git/config changed: %q", got)
	}
	ftWantNoTempFiles(t, root)
}

// TestWriteBeneathRootThroughLink: a root named through a symbolic link
// (outside the workspace, placed by the user) still takes writes.
func TestWriteBeneathRootThroughLink(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "proj")
	mustSymlink(t, real, link)
	ws, err := NewWorkspace(link)
	if err != nil {
		t.Fatal(err)
	}
	res := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": filepath.Join(link, "a", "f.txt"), "content": "x"})
	ftWantOK(t, res)
	if got := ftReadFile(t, filepath.Join(real, "a", "f.txt")); got != "x" {
		t.Errorf("content %q", got)
	}
}

// FuzzFollow: whatever a link holds and wherever it sits, following it
// either is refused or stays below a root, never climbs with "..", and
// never enters .git.
func FuzzFollow(f *testing.F) {
	for _, s := range [][3]string{
		{"a/link", "../b", "f"}, {"link", "/etc", "passwd"}, {"link", "../../..", "x"},
		{"d/l", "..", ".git/config"}, {"l", "sub/../../x", ""}, {"l", ".GIT", "hooks/x"},
		{"l", "/", ""}, {"x/y/z", "../../../second/q", "r"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	ws, err := NewWorkspace("/work/root", "/work/second")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, at, target, rest string) {
		if at == "" || strings.Contains(at, "\x00") {
			return
		}
		l := &linkMet{at: filepath.Join(ws.Root(), at), target: target, rest: rest}
		if !within(ws.Root(), l.at) {
			return // links are only met below a root
		}
		root, rel, err := ws.follow(l)
		if err != nil {
			return
		}
		if root != ws.Roots()[0] && root != ws.Roots()[1] {
			t.Fatalf("follow(%+v) gave root %q", l, root)
		}
		full := filepath.Join(root, rel)
		if !within(root, full) || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			t.Fatalf("follow(%+v) = %q, %q: not below the root", l, root, rel)
		}
		for _, part := range strings.Split(rel, "/") {
			if strings.EqualFold(part, ".git") {
				t.Fatalf("follow(%+v) = %q: into .git", l, rel)
			}
		}
	})
}
