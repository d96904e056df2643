package checkpoint

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// gitRepo makes a repository in a new directory with files added, using
// the git program (the test is skipped without it).
func gitRepo(t *testing.T, initArgs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git program")
	}
	root := t.TempDir()
	gitIn(t, root, append([]string{"init", "-q"}, initArgs...)...)
	return root
}

func gitIn(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestReadTrackedEveryIndexVersion(t *testing.T) {
	for _, c := range []struct {
		name    string
		init    []string
		version string
	}{
		{"v2", nil, "2"},
		{"v3", nil, "3"},
		{"v4", nil, "4"},
		{"sha256-v4", []string{"--object-format=sha256"}, "4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := gitRepo(t, c.init...)
			for _, rel := range []string{"a.go", "dir/b.go", "dir/deeper/c.go", "dir-x.go", "sub/long-name-file.txt"} {
				write(t, root, rel, rel, 0o644)
			}
			write(t, root, "untracked.txt", "u", 0o644)
			gitIn(t, root, "add", "a.go", "dir", "dir-x.go", "sub")
			write(t, root, "later.go", "l", 0o644)
			gitIn(t, root, "add", "-N", "later.go") // intent to add: extended flags
			gitIn(t, root, "update-index", "--index-version", c.version)
			gitDir, prefix, ok := gitDirOf(filepath.Join(root, "dir"))
			if !ok || gitDir != filepath.Join(root, ".git") || prefix != "dir/" {
				t.Fatalf("gitDirOf = %q %q %v", gitDir, prefix, ok)
			}
			whole, err := readTracked(filepath.Join(gitDir, "index"), "")
			must(t, err)
			want := []string{"a.go", "dir-x.go", "dir/b.go", "dir/deeper/c.go", "later.go", "sub/long-name-file.txt"}
			if !slices.Equal(whole.paths, want) {
				t.Fatalf("paths = %q, want %q", whole.paths, want)
			}
			for _, q := range []struct {
				rel   string
				isDir bool
				want  bool
			}{
				{"a.go", false, true}, {"untracked.txt", false, false}, {"dir", true, true},
				{"dir/deeper", true, true}, {"di", true, false}, {"sub", true, true}, {"a.go", true, false},
			} {
				if got := whole.tracked(q.rel, q.isDir); got != q.want {
					t.Errorf("tracked(%q, %v) = %v", q.rel, q.isDir, got)
				}
			}
			under, err := readTracked(filepath.Join(gitDir, "index"), prefix)
			must(t, err)
			if !slices.Equal(under.paths, []string{"b.go", "deeper/c.go"}) {
				t.Errorf("paths under dir/ = %q", under.paths)
			}
		})
	}
}

func TestGitDirOfAWorktreeFile(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".git", "gitdir: ../elsewhere/.git/worktrees/w\n", 0o644)
	gitDir, prefix, ok := gitDirOf(root)
	if !ok || gitDir != filepath.Join(filepath.Dir(root), "elsewhere/.git/worktrees/w") || prefix != "" {
		t.Fatalf("gitDirOf = %q %q %v", gitDir, prefix, ok)
	}
}

func TestSparseDirectoryEntries(t *testing.T) {
	s := &trackedSet{paths: []string{"a.go", "lib/"}, sparse: true}
	if !s.tracked("lib/x/y.go", false) || !s.tracked("lib/x", true) || s.tracked("libx.go", false) {
		t.Error("a sparse directory entry does not cover what is beneath it")
	}
}

// FuzzParseIndex: no input makes the parser panic, loop or allocate
// without bound, and what it accepts is a list of non-empty paths.
func FuzzParseIndex(f *testing.F) {
	if _, err := exec.LookPath("git"); err == nil {
		// Real indexes of each version as seeds.
		root := f.TempDir()
		gitIn(f, root, "init", "-q")
		for _, rel := range []string{"a.go", "dir/b.go", "dir/deeper/c.go"} {
			write(f, root, rel, rel, 0o644)
		}
		gitIn(f, root, "add", ".")
		for _, v := range []string{"2", "3", "4"} {
			gitIn(f, root, "update-index", "--index-version", v)
			data, err := os.ReadFile(filepath.Join(root, ".git", "index"))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + string(make([]byte, 20))))
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		paths, err := parseIndex(data)
		if err != nil {
			return
		}
		for _, p := range paths {
			if p == "" {
				t.Fatal("empty path accepted")
			}
		}
	})
}
