package sysprompt

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The snapshot runs git status and git log on a repository no one has
// looked at: a filter driver its configuration names for a changed file,
// or a signature program with log.showSignature, must not run. The same
// commands without the safe settings do run them, or the test would
// prove nothing.
func TestSnapshotRunsNoProgramOfTheRepository(t *testing.T) {
	dir := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// A commit with a signature, made by hand.
	head, body, _ := strings.Cut(git("", "cat-file", "commit", "HEAD"), "\n\n")
	signed := head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + body + "\n"
	git("", "update-ref", "HEAD", git(signed, "hash-object", "-t", "commit", "-w", "--stdin"))
	prog := filepath.Join(home, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+marker+"\ncat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.go filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Of the committed size: git must read it to know it changed.
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package mian\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("", "config", "filter.x.clean", prog)
	git("", "config", "gpg.program", prog)
	git("", "config", "log.showSignature", "true")

	for _, args := range [][]string{{"status", "--short"}, {"log", "--oneline", "-1"}} {
		os.Remove(marker)
		git("", args...)
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("git %v did not run the repository's program even without the safe settings", args)
		}
	}
	os.Remove(marker)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := Snapshot(ctx, dir, true, env).render()
	if !strings.Contains(out, "M main.go") || !strings.Contains(out, "first commit") {
		t.Errorf("snapshot:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the snapshot ran a program from the repository's configuration:\n%s", out)
	}
}
