package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeHome lays out a home directory with the secrets a read-only command
// must not read, the git configuration it must, and a program on PATH.
func fakeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range map[string]string{
		".ssh/id_ed25519":          "ssh-secret",
		".aws/credentials":         "aws-secret",
		".config/gh/hosts.yml":     "gh-secret",
		".config/git/credentials":  "git-secret",
		".git-credentials":         "git-secret",
		".ply/sessions/other.json": "ply-secret",
		"other-project/notes.txt":  "project-secret",
		".gitconfig":               "[include]\n\tpath = ~/.gitconfig-identity\n[includeIf \"gitdir:/\"]\n\tpath = .gitconfig-email\n",
		".gitconfig-identity":      "[include]\n\tpath = .gitconfig-name # the name\n",
		".gitconfig-email":         "[user]\n\temail = from@includeif\n",
		".gitconfig-name":          "[user]\n\tname = From Gitconfig\n",
		".config/git/ignore":       "*.ignored-by-xdg\n",
		"bin/hello":                "#!/bin/sh\necho hello from path\n",
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// TestReadOnlyReads checks what an auto-approved command may read: the
// workspace, the system, the user's git configuration and its PATH, but
// none of the home directory's secrets, even when PATH names the home
// directory itself or a link to it, and not root's own secrets in /etc.
func TestReadOnlyReads(t *testing.T) {
	requireLandlock(t)
	bothWays(t, func(t *testing.T) {
		ws, _ := dirs(t)
		home := fakeHome(t)
		git := exec.Command("git", "init", "-q", ws)
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		if err := os.WriteFile(filepath.Join(ws, "file.txt"), []byte("workspace"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := ReadOnlyPolicy(t.TempDir())
		p.ReadableDirs = []string{ws}
		link := filepath.Join(t.TempDir(), "home-link")
		if err := os.Symlink(home, link); err != nil {
			t.Fatal(err)
		}
		env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=",
			"PATH="+filepath.Join(home, "bin")+":"+home+":"+link+":/usr/bin:/bin")
		script := `cat file.txt; echo; hello; git config user.name; git config user.email; git status --short; cat /etc/hostname >/dev/null && echo etc-ok; head -c1 /proc/self/status >/dev/null && echo proc-ok`
		out, err := runEnv(t, p, ws, env, script)
		for _, w := range []string{"workspace", "hello from path", "From Gitconfig", "from@includeif", "?? file.txt", "etc-ok", "proc-ok"} {
			if !strings.Contains(out, w) {
				t.Errorf("missing %q: %v\n%s", w, err, out)
			}
		}
		for _, secret := range []string{".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".config/git/credentials",
			".git-credentials", ".ply/sessions/other.json", "other-project/notes.txt"} {
			out, err := runEnv(t, p, ws, env, "cat "+filepath.Join(home, secret))
			if err == nil || strings.Contains(out, "secret") {
				t.Errorf("read %s: %v\n%s", secret, err, out)
			}
		}
		if os.Geteuid() == 0 {
			if _, err := os.Stat("/etc/shadow"); err == nil {
				if out, err := runEnv(t, p, ws, env, "cat /etc/shadow"); err == nil {
					t.Errorf("root read /etc/shadow:\n%s", out)
				}
			}
		}
	})
}

// runEnv is run with the command's environment set.
func runEnv(t *testing.T, p Policy, dir string, env []string, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startConfined(cmd, p); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	return out.String(), err
}

// TestEtcReadable checks the walk of /etc on a made-up tree: what only
// its owner or group may read is left out, and a directory holding such
// a file is split into its other entries.
func TestEtcReadable(t *testing.T) {
	root := t.TempDir()
	for name, mode := range map[string]os.FileMode{
		"open/a": 0o644, "open/sub/b": 0o644,
		"mixed/public": 0o644, "mixed/shadow": 0o640, "mixed/keys/host_key": 0o600, "mixed/keys/host_key.pub": 0o644,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "private"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "open", "a"), filepath.Join(root, "mixed", "link")); err != nil {
		t.Fatal(err)
	}
	var r readableSet
	budget := 100
	if r.walk(root, &budget) {
		t.Fatal("a tree with private files was found world-readable")
	}
	rel := func(ps []string) string {
		var out []string
		for _, p := range ps {
			out = append(out, strings.TrimPrefix(p, root+"/"))
		}
		return strings.Join(out, " ")
	}
	if got := rel(r.dirs); got != "open" {
		t.Errorf("dirs %q, want open", got)
	}
	if got := rel(r.files); got != "mixed/keys/host_key.pub mixed/link mixed/public" {
		t.Errorf("files %q", got)
	}
	budget = 2
	var small readableSet
	small.walk(root, &budget)
	if len(small.dirs)+len(small.files) > 2 {
		t.Errorf("past the budget: %+v", small)
	}
}

// TestReadLayerKept checks the kept read layer: a file replaced by
// rename between two commands (as git config --global and editors save)
// is read in its new version, and a command cannot write the temporary
// directory of the command before it.
func TestReadLayerKept(t *testing.T) {
	requireLandlock(t)
	ws, _ := dirs(t)
	home := fakeHome(t)
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	tmp1, tmp2 := t.TempDir(), t.TempDir()
	p1, p2 := ReadOnlyPolicy(tmp1), ReadOnlyPolicy(tmp2)
	p1.ReadableDirs, p2.ReadableDirs = []string{ws}, []string{ws}
	if out, err := runEnvStart(t, p1, ws, env, "git config user.name"); err != nil || !strings.Contains(out, "From Gitconfig") {
		t.Fatalf("first command: %v\n%s", err, out)
	}
	next := filepath.Join(home, ".gitconfig.new")
	if err := os.WriteFile(next, []byte("[user]\n\tname = Replaced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, filepath.Join(home, ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	if out, err := runEnvStart(t, p2, ws, env, "git config user.name"); err != nil || !strings.Contains(out, "Replaced") {
		t.Errorf("after the file was replaced: %v\n%s", err, out)
	}
	if out, err := runEnvStart(t, p2, ws, env, "echo x > "+filepath.Join(tmp1, "f")); err == nil {
		t.Errorf("wrote the previous command's temporary directory:\n%s", out)
	}
	for range readLayerReuse + 1 {
		if out, err := runEnvStart(t, p2, ws, env, "true"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	readLayer.mu.Lock()
	uses := readLayer.uses
	readLayer.mu.Unlock()
	if uses > readLayerReuse {
		t.Errorf("the read layer served %d commands", uses)
	}
}

// runEnvStart is runEnv from a discarded thread, where the read layer is
// kept between commands.
func runEnvStart(t *testing.T, p Policy, dir string, env []string, script string) (string, error) {
	t.Helper()
	startConfined = Start
	defer func() { startConfined = startThroughHelper }()
	return runEnv(t, p, dir, env, script)
}
