package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSafeGitEnvWithGit runs the git on this machine with SafeGitEnv: a
// bare repository found from the working directory is refused, and the
// workspace repository's command-running settings do not run.
func TestSafeGitEnvWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	gitIn := func(wd string, env []string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = wd, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	base := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME="+dir)
	bare := filepath.Join(dir, "x.git")
	repo := filepath.Join(dir, "ws")
	for _, args := range [][]string{
		{"init", "-q", "--bare", bare},
		{"-C", bare, "config", "diff.external", "touch " + marker},
		{"-C", bare, "config", "core.fsmonitor", "touch " + marker},
		{"init", "-q", repo},
		{"-C", repo, "config", "core.fsmonitor", "touch " + marker},
		{"-C", repo, "config", "core.pager", "touch " + marker},
	} {
		if out, err := gitIn(dir, base, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// The bare-repository attack: git diff --no-index in a directory that is
	// a bare repository runs its diff.external.
	for _, f := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(bare, f), []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(bare, base, "diff", "--no-index", "a", "b")
	if _, err := os.Stat(marker); err != nil {
		t.Skip("this git does not run diff.external of a bare repository found from the working directory")
	}
	os.Remove(marker)
	safe := SafeGitEnv(base)
	gitIn(bare, safe, "diff", "--no-index", "a", "b")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git diff --no-index ran diff.external of a bare repository under SafeGitEnv")
	}
	if out, err := gitIn(bare, safe, "log"); err == nil || !strings.Contains(out, "safe.bareRepository") {
		t.Errorf("git log in a bare repository under SafeGitEnv: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(repo, "a"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status"}, {"diff"}, {"-p", "log"}} {
		if out, err := gitIn(repo, safe, args...); err != nil && !strings.Contains(out, "does not have any commits") {
			t.Errorf("git %v with SafeGitEnv: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a command from git configuration ran under SafeGitEnv")
	}
}
