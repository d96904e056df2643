//go:build unix

package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
)

func walkTestList(t *testing.T, opts walkOptions) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	if _, err := walkTree(context.Background(), opts, func(_ int, f walkFile) bool {
		if f.Path != filepath.Join(opts.Root, f.Rel) {
			t.Errorf("Path %q and Rel %q disagree", f.Path, f.Rel)
		}
		mu.Lock()
		got = append(got, f.Rel)
		mu.Unlock()
		return true
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func TestWalkTreeIgnoreRules(t *testing.T) {
	root, _ := searchTestWorkspace(t, map[string]string{
		".gitignore":         "*.log\n!keep.log\nbuild/\n/top.txt\n",
		".git/config":        "",
		".git/info/exclude":  "secret.txt\n",
		"a.go":               "",
		"a.log":              "",
		"keep.log":           "",
		"top.txt":            "",
		"secret.txt":         "",
		"build/out.o":        "",
		"sub/top.txt":        "", // /top.txt is anchored to the root
		"sub/x.log":          "",
		"sub/.gitignore":     "!x.log\n*.tmp\n",
		"sub/y.tmp":          "",
		"sub/deep/z.tmp":     "",
		"sub/deep/ok.go":     "",
		"sub/build/gone.txt": "",                  // build/ matches at any depth
		"vendor/.git":        "gitdir: elsewhere", // a submodule's .git file
		"vendor/v.go":        "",
	})
	if err := os.Symlink(filepath.Join(root, "a.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := walkTestList(t, walkOptions{Root: root, Workers: 3})
	want := []string{".gitignore", "a.go", "keep.log", "sub/.gitignore", "sub/deep/ok.go", "sub/top.txt", "sub/x.log", "vendor/v.go"}
	if !slices.Equal(got, want) {
		t.Errorf("walk:\n got %q\nwant %q", got, want)
	}
}

func TestWalkTreeSubdirectoryHonoursAncestors(t *testing.T) {
	root, _ := searchTestWorkspace(t, map[string]string{
		".gitignore":        "*.gen\nlocal/\n",
		"pkg/.gitignore":    "!keep.gen\n",
		"pkg/sub/a.gen":     "",
		"pkg/sub/keep.gen":  "",
		"pkg/sub/b.go":      "",
		"pkg/sub/local/c":   "",
		"node_modules/m.js": "",
		"node_modules/n.js": "",
	})
	got := walkTestList(t, walkOptions{Root: filepath.Join(root, "pkg/sub"), IgnoreRoot: root})
	if want := []string{"b.go", "keep.gen"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// A directory searched on purpose is walked even if ignored.
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("node_modules/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = walkTestList(t, walkOptions{Root: filepath.Join(root, "node_modules"), IgnoreRoot: root})
	if want := []string{"m.js", "n.js"}; !slices.Equal(got, want) {
		t.Errorf("explicit ignored root: got %q, want %q", got, want)
	}
	if _, err := walkTree(context.Background(), walkOptions{Root: root, IgnoreRoot: filepath.Join(root, "pkg")}, func(int, walkFile) bool { return true }); err == nil {
		t.Error("an ignore root below the walk root must be refused")
	}
}

func TestWalkTreeMaxDepth(t *testing.T) {
	root, _ := searchTestWorkspace(t, map[string]string{"a": "", "d/b": "", "d/e/c": ""})
	if got, want := walkTestList(t, walkOptions{Root: root, MaxDepth: 1}), []string{"a"}; !slices.Equal(got, want) {
		t.Errorf("depth 1: %q", got)
	}
	if got, want := walkTestList(t, walkOptions{Root: root, MaxDepth: 2}), []string{"a", "d/b"}; !slices.Equal(got, want) {
		t.Errorf("depth 2: %q", got)
	}
}

func TestWalkTreeStopAndCancel(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[filepath.Join("d", string(rune('a'+i%26)), "f"+string(rune('a'+i/26)))] = ""
	}
	root, _ := searchTestWorkspace(t, files)

	var mu sync.Mutex
	calls := 0
	if _, err := walkTree(context.Background(), walkOptions{Root: root, Workers: 2}, func(int, walkFile) bool {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return calls < 5
	}); err != nil {
		t.Fatal(err)
	}
	// Each worker may be inside the callback when the stop lands.
	if calls < 5 || calls > 6 {
		t.Errorf("stopping after 5 files made %d calls", calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	_, err := walkTree(ctx, walkOptions{Root: root, Workers: 2}, func(int, walkFile) bool {
		mu.Lock()
		defer mu.Unlock()
		if calls++; calls == 3 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) || calls >= 300 {
		t.Errorf("cancelled walk: err %v after %d calls", err, calls)
	}
}

func TestWalkTreeCountsUnreadableDirectories(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any directory")
	}
	root, _ := searchTestWorkspace(t, map[string]string{"ok/a": "", "locked/b": ""})
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	stats, err := walkTree(context.Background(), walkOptions{Root: root}, func(int, walkFile) bool { return true })
	if err != nil || stats.Unreadable != 1 || stats.FirstErr == nil {
		t.Errorf("stats %+v, err %v", stats, err)
	}
}
