package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/settings"
)

func TestMissingFileTrustsNothing(t *testing.T) {
	l, err := Load(filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Trusted(t.TempDir()); ok || len(l.Folders()) != 0 {
		t.Fatalf("an empty list trusts: %+v", l.Folders())
	}
}

func TestAddSaveLoadTrustsSubfolders(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	sub := filepath.Join(proj, "a", "b")
	sibling := proj + "-other" // shares a prefix, not a component
	for _, d := range []string{sub, sibling} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(home, FileName)
	l, _ := Load(path)
	now := time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)
	if _, added, err := l.Add(proj, now); err != nil || !added {
		t.Fatalf("add: %v %v", added, err)
	}
	if _, added, _ := l.Add(proj+"/", now); added {
		t.Fatal("the same folder was added twice")
	}
	if err := l.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v %v", fi, err)
	}
	l2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{proj, sub} {
		if f, ok := l2.Trusted(d); !ok || f.Path != proj || !f.Added.Equal(now) {
			t.Errorf("%s: trusted=%v by %+v", d, ok, f)
		}
	}
	for _, d := range []string{sibling, filepath.Dir(proj)} {
		if _, ok := l2.Trusted(d); ok {
			t.Errorf("%s is trusted but was never added", d)
		}
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestSymlinkedNameIsTrusted(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	l, _ := Load(filepath.Join(t.TempDir(), FileName))
	if _, _, err := l.Add(link, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Trusted(real); !ok {
		t.Fatal("the folder a symlink names is not trusted under its real name")
	}
	if _, removed, _ := l.Remove(link); !removed {
		t.Fatal("removing by the symlink's name did nothing")
	}
	if _, ok := l.Trusted(real); ok {
		t.Fatal("still trusted after removal")
	}
}

func TestRemoveLeavesAncestorTrust(t *testing.T) {
	proj := t.TempDir()
	sub := filepath.Join(proj, "sub")
	os.Mkdir(sub, 0o755)
	l, _ := Load(filepath.Join(t.TempDir(), FileName))
	l.Add(proj, time.Now())
	l.Add(sub, time.Now())
	if _, removed, _ := l.Remove(sub); !removed {
		t.Fatal("not removed")
	}
	if _, ok := l.Trusted(sub); !ok {
		t.Fatal("the trusted parent should still trust sub")
	}
	if _, removed, _ := l.Remove(filepath.Join(proj, "never-added")); removed {
		t.Fatal("removed a folder that was never listed")
	}
}

func TestRemoveDeletedFolder(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(gone, 0o755)
	l, _ := Load(filepath.Join(t.TempDir(), FileName))
	l.Add(gone, time.Now())
	os.Remove(gone)
	if _, removed, _ := l.Remove(gone); !removed {
		t.Fatal("a deleted folder cannot be removed from the list")
	}
}

func TestBrokenFileTrustsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("{\n  \"trusted\": [\n    {\"path\": \"/x\"}\n    {\"path\": \"/y\"}\n  ]\n}\n"), 0o600)
	l, err := Load(path)
	var se *settings.SyntaxError
	if !errors.As(err, &se) || se.Path != path || se.Line != 4 {
		t.Fatalf("err = %v, want a syntax error on line 4", err)
	}
	if _, ok := l.Trusted("/x"); ok {
		t.Fatal("a broken file trusted /x")
	}
	os.WriteFile(path, []byte("{\"trusted\": [\n  {\"path\": \"/abs\"},\n  {\"path\": \"rel/dir\"}\n]}"), 0o600)
	_, err = Load(path)
	if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(err.Error(), `"rel/dir" is not an absolute path`) {
		t.Fatalf("relative path: %v", err)
	}
}

func TestRootTrustsEverything(t *testing.T) {
	if !Within("/a/b", "/") || !Within("/", "/") || Within("/ab", "/a") || !Within("/a/b", "/a") {
		t.Fatal("Within")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"trusted": [{"path": "/a"}]}`))
	f.Add([]byte("// c\n{\"trusted\": [{\"path\": \"/a/b\", \"added\": \"2026-01-01T00:00:00Z\"},]}"))
	f.Add([]byte(`{"trusted": [{"path": "rel"}]}`))
	f.Add([]byte(`{"trusted": {}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		folders, err := parse("f.json", b)
		if err != nil {
			var se *settings.SyntaxError
			if !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, f := range folders {
			if !filepath.IsAbs(f.Path) || filepath.Clean(f.Path) != f.Path {
				t.Fatalf("accepted %q", f.Path)
			}
			if !Within(f.Path, f.Path) || !Within(filepath.Join(f.Path, "x"), f.Path) {
				t.Fatalf("Within(%q)", f.Path)
			}
		}
	})
}

func FuzzWithin(f *testing.F) {
	f.Add("/a/b", "/a")
	f.Add("/ab", "/a")
	f.Add("/", "/")
	f.Fuzz(func(t *testing.T, dir, root string) {
		if !filepath.IsAbs(dir) || !filepath.IsAbs(root) {
			return
		}
		dir, root = filepath.Clean(dir), filepath.Clean(root)
		got := Within(dir, root)
		rel, err := filepath.Rel(root, dir)
		want := err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
		if got != want {
			t.Fatalf("Within(%q, %q) = %v, Rel says %q", dir, root, got, rel)
		}
	})
}

// Processes trusting folders at once all keep their change.
func TestConcurrentEditsKeepEveryFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", FileName)
	const n = 16
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = t.TempDir()
	}
	errs := make(chan error, n)
	for _, d := range dirs {
		go func() {
			errs <- Edit(path, func(l *List) error {
				_, _, err := l.Add(d, time.Now())
				time.Sleep(time.Millisecond) // widen the read-modify-write window
				return err
			})
		}()
	}
	for range dirs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	l, err := Load(path)
	if err != nil || len(l.Folders()) != n {
		t.Fatalf("%d folders kept of %d (err %v)", len(l.Folders()), n, err)
	}
}
