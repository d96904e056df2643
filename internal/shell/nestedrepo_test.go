package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// git run inside a repository nested in the workspace (vendor/lib with a
// .git of its own) reads that repository's configuration, which can name
// programs: it is not read-only there, from any depth below it, whether
// .git is a directory or a file pointing elsewhere. The workspace's own
// repository stays read-only.
func TestGitInNestedRepositoryIsNotReadOnly(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git", "src", "vendor/lib/.git", "vendor/lib/pkg", "mods/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "mods/sub/.git"), []byte("gitdir: ../../.git/modules/sub\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cwd  string
		want bool
	}{
		{"", true},
		{"src", true},
		{"vendor", true},
		{"vendor/lib", false},
		{"vendor/lib/pkg", false},
		{"mods/sub", false},
	} {
		if got := IsReadOnlyIn("git status", []string{root}, c.cwd); got != c.want {
			t.Errorf("git status in %q: read-only %v, want %v", c.cwd, got, c.want)
		}
		if got := IsReadOnlyIn("ls", []string{root}, c.cwd); !got {
			t.Errorf("ls in %q is not read-only", c.cwd)
		}
	}
}
