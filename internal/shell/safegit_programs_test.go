package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A repository whose configuration names a signature program and asks
// for signatures in every log: under SafeGitEnv no program runs, even
// for an explicit --show-signature.
func TestSafeGitEnvRunsNoSignatureProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo, marker := filepath.Join(dir, "repo"), filepath.Join(dir, "ran")
	base := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME="+dir,
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
	git := func(env []string, stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(base, "", "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "a"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(base, "", "add", "a")
	git(base, "", "commit", "-qm", "init")
	// A commit carrying a signature, made by hand: no key is needed.
	head, body, _ := strings.Cut(git(base, "", "cat-file", "commit", "HEAD"), "\n\n")
	signed := head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + body + "\n"
	id := git(base, signed, "hash-object", "-t", "commit", "-w", "--stdin")
	git(base, "", "update-ref", "HEAD", id)
	prog := filepath.Join(dir, "sig")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(base, "", "config", "log.showSignature", "true")
	for _, key := range []string{"gpg.program", "gpg.openpgp.program"} {
		git(base, "", "config", key, prog)
		for _, args := range [][]string{{"log", "-1"}, {"show"}, {"log", "--show-signature", "-1"}} {
			os.Remove(marker)
			git(base, "", args...)
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("git %v with %s did not run it even without the safe settings", args, key)
			}
			os.Remove(marker)
			git(SafeGitEnv(base), "", args...)
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("git %v ran %s under SafeGitEnv", args, key)
			}
		}
		git(base, "", "config", "--unset", key)
	}
}
