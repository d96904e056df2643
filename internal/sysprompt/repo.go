package sysprompt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/envpolicy"
	"github.com/plyhq/ply/internal/gitstate"
	"github.com/plyhq/ply/internal/safefile"
	"github.com/plyhq/ply/internal/safegit"
	"github.com/plyhq/ply/internal/sandbox"
	"github.com/plyhq/ply/internal/shell"
)

const (
	// repoMaxStatus and repoMaxListing cap the snapshot's lists: it is
	// sent with every request.
	repoMaxStatus  = 20
	repoMaxListing = 40
	repoCommits    = 5
)

// Repo is what the model is told about the repository at session start:
// enough to tell the user's uncommitted work from its own and to skip a
// first round of git log and list_directory.
//
// A session records its snapshot (as JSON) in its transcript, so that a
// resumed session is shown the same one.
type Repo struct {
	// Branch is the branch checked out, read from .git/HEAD; "" outside
	// a repository.
	Branch string `json:"branch,omitempty"`
	// Status holds `git status --short` lines; StatusMore counts the
	// ones left out.
	Status     []string `json:"status,omitempty"`
	StatusMore int      `json:"status_more,omitempty"`
	Commits    []string `json:"commits,omitempty"` // `git log --oneline`, newest first
	Listing    []string `json:"listing,omitempty"` // the top level, directories with a slash
	ListMore   int      `json:"list_more,omitempty"`
	// Notes say what could not be gathered and why.
	Notes []string `json:"notes,omitempty"`
	// Git is true when the status was read, in process or by git.
	Git bool `json:"git,omitempty"`
}

// Snapshot gathers the repository's state under dir: the top-level
// listing, and git status and recent commits. It reads them in process
// (internal/gitstate), which starts nothing and writes nothing, trusted
// folder or not; when the repository uses anything that reader does not
// fully read, it asks git, which must answer before ctx ends.
//
// git status and git log then run at once, with optional locks off, so that they
// never write the index, and with every setting of the repository's
// configuration that could run a program switched off (safegit:
// fsmonitor, hooks, filter drivers, signature programs, submodules' own
// configuration). In a folder that is not trusted they also run under the
// read-only kernel profile, as the model's own read-only git commands do:
// they may read the repository and the system, write nothing and reach
// no network; where the kernel has no such profile, git is not run. git
// gets env, or with nil ply's environment less the variables envpolicy
// withholds.
func Snapshot(ctx context.Context, dir string, trusted bool, env []string) *Repo {
	r := &Repo{Branch: gitBranch(dir)}
	if readInProcess(ctx, r, dir, env) {
		r.Listing, r.ListMore = listing(dir)
		return r
	}
	var wg sync.WaitGroup
	var status, log []byte
	var statusErr, logErr error
	run, note := gitRunner(dir, trusted)
	if note != "" {
		r.Notes = append(r.Notes, note)
	}
	ranGit := run != nil
	if ranGit {
		defer run.close()
		env = gitEnv(env)
		wg.Add(2)
		go func() {
			defer wg.Done()
			// Only status reads the work tree through drivers: log
			// need not wait for them to be looked up.
			status, statusErr = run.output(ctx, dir, safegit.Overrides(ctx, dir, env), "status", "--short", "--untracked-files=normal", "--no-renames")
		}()
		go func() {
			defer wg.Done()
			log, logErr = run.output(ctx, dir, env, "log", "--oneline", "--no-decorate", fmt.Sprintf("-%d", repoCommits))
		}()
	}
	r.Listing, r.ListMore = listing(dir)
	wg.Wait()
	if !ranGit {
		return r
	}
	switch {
	case statusErr != nil && ctx.Err() != nil:
		r.Notes = append(r.Notes, "git status was not read: git did not answer within the start-up time budget")
	case statusErr != nil:
		r.Notes = append(r.Notes, "git status was not read: git failed ("+firstLine(statusErr)+")")
	default:
		r.setStatus(nonEmptyLines(status))
		// A log that fails with git status working means no commits
		// yet (or no time left for it): say nothing rather than guess.
		if logErr == nil {
			r.Commits = nonEmptyLines(log)
		}
	}
	return r
}

// readInProcess fills r's status and commits from gitstate, and reports
// whether it could: false outside a repository, past ctx, and whenever
// the reader declines the repository (then git is asked).
func readInProcess(ctx context.Context, r *Repo, dir string, env []string) bool {
	if _, _, ok := repoDirs(dir); !ok || ctx.Err() != nil {
		return false
	}
	if env == nil {
		env = envpolicy.Environ()
	}
	st, err := gitstate.Read(ctx, dir, env)
	if err != nil {
		slog.Debug("repository snapshot: asking git", "dir", dir, "reason", err)
		return false
	}
	r.Git = true
	r.setStatus(st.Status)
	r.Commits = st.Commits
	return true
}

// setStatus keeps the first repoMaxStatus lines and counts the rest.
func (r *Repo) setStatus(lines []string) {
	r.Git = true
	if len(lines) > repoMaxStatus {
		r.StatusMore = len(lines) - repoMaxStatus
		lines = lines[:repoMaxStatus]
	}
	r.Status = lines
}

// firstLine is the first line of err's message, and of the stderr git
// wrote when err is an *exec.ExitError.
func firstLine(err error) string {
	msg := err.Error()
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		msg = string(ee.Stderr)
	}
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	return msg
}

// gitEnv is the environment of the snapshot's git commands: env, or with
// nil the environment of every process ply starts (without its secrets),
// with the safe settings of fixed names.
func gitEnv(env []string) []string {
	if env == nil {
		env = envpolicy.Environ()
	}
	return shell.SafeGitEnv(append(slices.Clip(env), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"))
}

// gitRun runs the snapshot's git commands, confined when policy is set.
type gitRun struct {
	policy *sandbox.Policy
	tmp    string
}

// gitRunner returns how the snapshot runs git in dir, or nil and the note
// that says why it does not.
func gitRunner(dir string, trusted bool) (*gitRun, string) {
	root, gdir, ok := repoDirs(dir)
	switch {
	case !ok:
		return nil, ""
	case trusted:
		return &gitRun{}, ""
	}
	if err := sandbox.ReadOnlyAvailable(); err != nil {
		return nil, "git status was not read: this folder is not trusted, and the kernel has no read-only profile to run git in"
	}
	tmp, err := os.MkdirTemp("", "ply-snapshot-")
	if err != nil {
		return nil, "git status was not read: " + err.Error()
	}
	p := sandbox.ReadOnlyPolicy(tmp)
	p.ReadableDirs = []string{root, gdir}
	// A worktree's git directory names the repository's own in
	// commondir.
	if f, err := safefile.Read(filepath.Join(gdir, "commondir"), maxHead); err == nil {
		c := strings.TrimSpace(string(f.Data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gdir, c)
		}
		p.ReadableDirs = append(p.ReadableDirs, filepath.Clean(c))
	}
	return &gitRun{policy: &p, tmp: tmp}, ""
}

func (g *gitRun) close() {
	if g.tmp != "" {
		_ = os.RemoveAll(g.tmp)
	}
}

func (g *gitRun) output(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.untrackedCache=false", "--no-pager"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	if g.policy == nil {
		return cmd.Output()
	}
	// status and log run at once with the same environment: each adds
	// to a copy, never to the backing array they share.
	cmd.Env = append(slices.Clip(cmd.Env), "TMPDIR="+g.tmp)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := sandbox.Start(cmd, *g.policy); err != nil {
		return nil, err
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ee.Stderr = stderr.Bytes()
		}
		return nil, err
	}
	return out.Bytes(), nil
}

func nonEmptyLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(bytes.TrimRight(b, "\n")), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// listing reads dir's entries, directories marked with a slash, .git
// left out.
func listing(dir string) ([]string, int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	if len(out) > repoMaxListing {
		return out[:repoMaxListing], len(out) - repoMaxListing
	}
	return out, 0
}

// render is the snapshot's section of the prompt.
func (r *Repo) render() string {
	var b strings.Builder
	b.WriteString("\n# Repository at session start\n")
	if r.Git {
		if len(r.Status) == 0 {
			b.WriteString("- git status: clean\n")
		} else {
			b.WriteString("- git status --short (changes made before this session are the user's):\n")
			for _, l := range r.Status {
				b.WriteString("  " + l + "\n")
			}
			if r.StatusMore > 0 {
				fmt.Fprintf(&b, "  (%d more)\n", r.StatusMore)
			}
		}
		if len(r.Commits) > 0 {
			b.WriteString("- Recent commits:\n")
			for _, c := range r.Commits {
				b.WriteString("  " + c + "\n")
			}
		}
	}
	if len(r.Listing) > 0 {
		b.WriteString("- Top level: " + strings.Join(r.Listing, " "))
		if r.ListMore > 0 {
			fmt.Fprintf(&b, " (and %d more)", r.ListMore)
		}
		b.WriteString("\n")
	}
	for _, n := range r.Notes {
		b.WriteString("- " + n + "\n")
	}
	return b.String()
}
