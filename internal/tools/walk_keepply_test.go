package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// KeepPlyIgnored is asked only about what a .plyignore excludes and no
// .gitignore does; a kept directory is listed.
func TestWalkWorkspaceKeepPlyIgnored(t *testing.T) {
	root := t.TempDir()
	for rel, data := range map[string]string{
		".gitignore": "*.log\n", ".plyignore": "*\n!.gitignore\n",
		"a.go": "a", "b.log": "b", "keep/c.go": "c", "keep/d.txt": "d", "drop/e.go": "e",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var asked, got []string
	keep := map[string]bool{"a.go": true, "b.log": true, "keep": true, "keep/c.go": true}
	_, err := WalkWorkspaceWith(context.Background(), root, WalkWorkspaceOptions{KeepPlyIgnored: func(rel string, isDir bool) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, rel)
		return keep[rel]
	}}, func(_ int, f WorkspaceFile) bool {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, f.Rel)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(asked)
	slices.Sort(got)
	if want := []string{".plyignore", "a.go", "drop", "keep", "keep/c.go", "keep/d.txt"}; !slices.Equal(asked, want) {
		t.Errorf("asked about %q, want %q (never b.log, which .gitignore excludes)", asked, want)
	}
	if want := []string{".gitignore", "a.go", "keep/c.go"}; !slices.Equal(got, want) {
		t.Errorf("walked %q, want %q", got, want)
	}
}
