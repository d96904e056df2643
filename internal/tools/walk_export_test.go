package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

func TestWalkWorkspaceReportsLinksAndHonoursPlyignore(t *testing.T) {
	root := t.TempDir()
	for name, data := range map[string]string{
		"a.txt": "a", ".gitignore": "build/\n", ".plyignore": "secret.txt\n",
		"build/out": "x", "secret.txt": "s", "sub/b.txt": "b", ".git/config": "c",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]fs.FileMode{}
	if _, err := WalkWorkspace(context.Background(), root, 2, func(_ int, f WorkspaceFile) bool {
		mu.Lock()
		got[f.Rel] = f.Type
		mu.Unlock()
		return true
	}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{".gitignore", ".plyignore", "a.txt", "link", "sub/b.txt"}
	if !slices.Equal(names, want) {
		t.Fatalf("walked %q, want %q", names, want)
	}
	if got["link"] != fs.ModeSymlink || got["a.txt"] != 0 {
		t.Errorf("types: link %v, a.txt %v", got["link"], got["a.txt"])
	}
}

func TestWalkWorkspaceWithWalksPartOfTheTree(t *testing.T) {
	root := t.TempDir()
	for name, data := range map[string]string{
		".gitignore": "*.log\n", "top.txt": "t", "sub/a.txt": "a", "sub/x.log": "x",
		"sub/deep/b.txt": "b", "other/c.txt": "c",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(o WalkWorkspaceOptions) (files, dirs []string) {
		var mu sync.Mutex
		o.BeforeDir = func(dir string) {
			mu.Lock()
			dirs = append(dirs, dir)
			mu.Unlock()
		}
		if _, err := WalkWorkspaceWith(context.Background(), root, o, func(_ int, f WorkspaceFile) bool {
			mu.Lock()
			files = append(files, f.Rel)
			mu.Unlock()
			return true
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(files)
		slices.Sort(dirs)
		return files, dirs
	}
	files, dirs := walk(WalkWorkspaceOptions{Dir: "sub"})
	if want := []string{"sub/a.txt", "sub/deep/b.txt"}; !slices.Equal(files, want) {
		t.Errorf("Dir sub: files %q, want %q (the root's .gitignore applies, Rel stays root-relative)", files, want)
	}
	if want := []string{filepath.Join(root, "sub"), filepath.Join(root, "sub", "deep")}; !slices.Equal(dirs, want) {
		t.Errorf("Dir sub: BeforeDir saw %q, want %q", dirs, want)
	}
	files, dirs = walk(WalkWorkspaceOptions{Dir: "sub", MaxDepth: 1})
	if want := []string{"sub/a.txt"}; !slices.Equal(files, want) || len(dirs) != 1 {
		t.Errorf("Dir sub depth 1: files %q dirs %q, want %q and one directory", files, dirs, want)
	}
}
