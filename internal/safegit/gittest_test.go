package safegit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitRepo is a repository in a temporary directory whose configuration
// tests fill with programs that touch a marker file.
type gitRepo struct {
	t      *testing.T
	dir    string
	base   []string // an environment without ply's settings
	marker string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tmp := t.TempDir()
	r := &gitRepo{t: t, dir: filepath.Join(tmp, "repo"), marker: filepath.Join(tmp, "ran")}
	r.base = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+tmp, "XDG_CONFIG_HOME="+tmp,
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
	r.git(r.base, tmp, "init", "-q", r.dir)
	return r
}

// git runs git in dir (the repository for ""), failing the test on error.
func (r *gitRepo) git(env []string, dir string, args ...string) string {
	r.t.Helper()
	out, err := r.run(env, dir, args...)
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func (r *gitRepo) run(env []string, dir string, args ...string) (string, error) {
	if dir == "" {
		dir = r.dir
	}
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (r *gitRepo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// ran reports whether a program touched the marker since the last call.
func (r *gitRepo) ran() bool {
	_, err := os.Stat(r.marker)
	os.Remove(r.marker)
	return err == nil
}

// touch is a shell command that touches the marker and then does rest.
func (r *gitRepo) touch(rest string) string { return "touch " + r.marker + "; " + rest }

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
