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
