package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// snapshotFigure measures process start → first request byte in dir, a
// git repository, where ply gathers the repository snapshot (git status,
// git log, the top level) beside its start-up: in a trusted folder, and
// in one that is not, where git runs under the read-only kernel profile.
// The prompt must say either what git reported or that it was skipped.
func (b *bench) snapshotFigure(group, dir string) error {
	for _, c := range []struct {
		args []string
		name string
	}{
		{[]string{"--trust-workspace", "-y", "-p", "say hello"}, "process start → first request byte, with the repository snapshot"},
		{[]string{"-y", "-p", "say hello"}, "the same in a folder not trusted (git confined)"},
	} {
		rs, err := b.repeat(plyRun{bin: b.bin, dir: dir, args: c.args,
			rounds: []round{{text: "Hello."}},
			check: func(_ string, reqs []fp.Request) error {
				sys := reqs[0].Messages[0].Text()
				if !strings.Contains(sys, "# Repository at session start") || !strings.Contains(sys, "git status") {
					return fmt.Errorf("the system prompt has no repository snapshot with git's part")
				}
				return nil
			}}, b.n)
		if err != nil {
			return fmt.Errorf("%s: %w", group, err)
		}
		b.t.add(&row{group: group, name: c.name, unit: unitDuration, target: float64(20 * time.Millisecond),
			values: pick(rs, func(r runResult) float64 { return float64(r.startup) })})
	}
	return nil
}

// smallRepo makes a git repository of a few files, one commit and one
// uncommitted change.
func smallRepo(dir string) error {
	if err := makeWorkspace(dir); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "the demo project"}} {
		if err := git(dir, args...); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "NOTES.md"), []byte("uncommitted\n"), 0o644)
}

// gitInitTree makes the large tree a repository (once; nothing added, so
// git status walks all 50,000 files as untracked).
func gitInitTree(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return nil
	}
	return git(dir, "init", "-q")
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=plybench", "GIT_AUTHOR_EMAIL=plybench@localhost",
		"GIT_COMMITTER_NAME=plybench", "GIT_COMMITTER_EMAIL=plybench@localhost")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}
