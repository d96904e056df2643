package safegit

import (
	"context"
	"strings"
	"testing"
)

// checkNotRun runs each git command twice: plainly, where the program
// the repository configured must run (or the test proves nothing), and
// with Env, where it must not.
func checkNotRun(t *testing.T, r *gitRepo, cmds ...[]string) {
	t.Helper()
	safe := Env(context.Background(), r.dir, r.base)
	for _, args := range cmds {
		r.ran()
		r.run(r.base, "", args...)
		if !r.ran() {
			t.Fatalf("git %v did not run the configured program even without the safe settings", args)
		}
		out, err := r.run(safe, "", args...)
		if r.ran() {
			t.Errorf("git %v ran a program from the repository's configuration under Env:\n%s", args, out)
		}
		if err != nil {
			t.Errorf("git %v under Env: %v\n%s", args, err, out)
		}
	}
}

func TestEnvSwitchesOffFilterDrivers(t *testing.T) {
	r := newGitRepo(t)
	r.write(".gitattributes", "*.txt filter=x\n")
	r.write("a.txt", "one\n")
	r.git(r.base, "", "add", ".")
	r.git(r.base, "", "commit", "-qm", "init")
	r.git(r.base, "", "config", "filter.x.clean", r.touch("cat"))
	r.git(r.base, "", "config", "filter.x.smudge", r.touch("cat"))
	r.git(r.base, "", "config", "filter.x.required", "true")
	r.write("a.txt", "two\n") // same size: git must hash it to know
	checkNotRun(t, r, []string{"status", "--short"}, []string{"diff"})
	r.git(r.base, "", "config", "filter.x.process", r.touch("exit 1"))
	checkNotRun(t, r, []string{"diff"})
}

func TestEnvSwitchesOffTextconvAndExternalDiff(t *testing.T) {
	r := newGitRepo(t)
	r.write(".gitattributes", "*.bin diff=y\n")
	r.write("a.bin", "one\n")
	r.git(r.base, "", "add", ".")
	r.git(r.base, "", "commit", "-qm", "init")
	r.write("a.bin", "two\n")
	r.git(r.base, "", "commit", "-qam", "two")
	r.git(r.base, "", "config", "diff.y.textconv", r.touch(`cat "$@"`))
	checkNotRun(t, r, []string{"log", "-p"}, []string{"show"}, []string{"blame", "a.bin"}, []string{"diff", "HEAD~1"})
	r.git(r.base, "", "config", "diff.y.command", r.touch(":"))
	checkNotRun(t, r, []string{"diff", "HEAD~1"})
	out, _ := r.run(Env(context.Background(), r.dir, r.base), "", "diff", "HEAD~1")
	if !strings.Contains(out, "a.bin") {
		t.Errorf("the diff does not say which file's external diff was skipped:\n%s", out)
	}
	r.git(r.base, "", "config", "--unset", "diff.y.command")
	r.git(r.base, "", "config", "diff.external", r.touch(":"))
	checkNotRun(t, r, []string{"diff", "HEAD~1"})
}

// Settings from the user's own configuration are the user's: they stay.
func TestEnvKeepsTheUsersOwnDrivers(t *testing.T) {
	r := newGitRepo(t)
	r.git(r.base, "", "config", "--global", "filter.lfs.clean", "git-lfs clean -- %f")
	r.git(r.base, "", "config", "diff.y.textconv", "evil")
	got := strings.Join(Env(context.Background(), r.dir, r.base), "\n")
	if strings.Contains(got, "filter.lfs") || !strings.Contains(got, "diff.y.textconv") {
		t.Fatalf("overrides:\n%s", got)
	}
}

// git status looks into a submodule's work tree with the submodule's own
// configuration, whose drivers Env cannot know: it stops at the commit
// the submodule is on, whatever the repository's ignore settings say.
func TestEnvDoesNotLookIntoSubmodules(t *testing.T) {
	r := newGitRepo(t)
	sub := r.dir + "-sub"
	r.git(r.base, r.dir+"/..", "init", "-q", sub)
	if err := writeFile(sub+"/.gitattributes", "* filter=z\n"); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(sub+"/s", "one\n"); err != nil {
		t.Fatal(err)
	}
	r.git(r.base, sub, "add", ".")
	r.git(r.base, sub, "commit", "-qm", "sub")
	r.git(r.base, "", "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sm")
	r.git(r.base, "", "commit", "-qm", "add sm")
	sm := r.dir + "/sm"
	r.git(r.base, sm, "config", "filter.z.clean", r.touch("cat"))
	if err := writeFile(sm+"/s", "two\n"); err != nil {
		t.Fatal(err)
	}
	checkNotRun(t, r, []string{"status", "--short"}, []string{"diff"})
	r.git(r.base, "", "config", "-f", ".gitmodules", "submodule.sm.ignore", "none")
	r.git(r.base, "", "config", "submodule.sm.ignore", "untracked")
	checkNotRun(t, r, []string{"status", "--short"})
	r.git(r.base, "", "config", "--unset", "submodule.sm.ignore")
	checkNotRun(t, r, []string{"status", "--short"})
}
