// Package fleet runs many headless ply processes at once, each in a git
// worktree of its own of one repository, all sharing one PLY_HOME (the
// checkpoint stores, the session locks), against one fake provider on
// loopback, and checks what they leave behind: every run succeeded, every
// transcript loads and resumes, every checkpoint verifies, and no
// worktree holds another's files. The parallel-sessions test and bench/run
// use it. Nothing of ply imports it; it starts the binary it is given and
// touches only the directory it is given.
package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/worktree"
)

// Options say what to run.
type Options struct {
	Bin      string // ply's binary
	Dir      string // an empty directory for the repository and PLY_HOME
	Sessions int    // how many at once
	// Writes is how many rounds each session writes a file in before its
	// answer (at least 1).
	Writes int
}

// Run is what a fleet run measured and found.
type Run struct {
	// Wall is from the first start to the last exit of the parallel runs;
	// ResumeWall the same for the resumes.
	Wall, ResumeWall time.Duration
	// MaxRSS holds each first run's peak resident set, in bytes (0 where
	// the platform does not say).
	MaxRSS      []int64
	Checkpoints int // checkpoints verified
	Repo, Home  string
}

// job is one session of the fleet.
type job struct {
	n    int
	tag  string // in its prompt; the fake provider's turns match on it
	name string // of its worktree
	id   string // of its session
}

func (j job) file(r int) string { return fmt.Sprintf("%s-%d.txt", j.name, r) }

// RunFleet starts o.Sessions ply processes at once, each with --worktree, then
// resumes each from the main work tree, and checks them.
func RunFleet(ctx context.Context, o Options) (*Run, error) {
	o.Writes = max(o.Writes, 1)
	repo, home := filepath.Join(o.Dir, "repo"), filepath.Join(o.Dir, "home")
	res := &Run{Repo: repo, Home: home}
	if err := makeRepo(ctx, repo); err != nil {
		return res, err
	}
	jobs := make([]job, o.Sessions)
	var turns []fp.Turn
	for i := range jobs {
		j := job{n: i, tag: fmt.Sprintf("[job-%03d]", i), name: fmt.Sprintf("job-%03d", i),
			id: fmt.Sprintf("00000000-0000-4000-8000-%012d", i)}
		jobs[i] = j
		for r := range o.Writes {
			turns = append(turns, fp.Turn{fp.When(j.tag),
				fp.ToolCall(fmt.Sprintf("w%d", r), "write_file", fmt.Sprintf(`{"file_path":%q,"content":"%s round %d\n"}`, j.file(r), j.tag, r))})
		}
		turns = append(turns,
			fp.Turn{fp.When(j.tag), fp.ToolCall("ls", "list_directory", `{"path":"."}`)},
			fp.Turn{fp.When(j.tag), fp.Text("done " + j.tag)},
			fp.Turn{fp.When(j.tag + " again"), fp.Text("again " + j.tag)})
	}
	srv := fp.NewServer(turns...)
	defer srv.Close()
	env := append(os.Environ(), "PLY_HOME="+home, "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=k",
		"OPENAI_MODEL=m", "PLY_RETRY_DELAY_SCALE=0.001")

	t0 := time.Now()
	res.MaxRSS = make([]int64, len(jobs))
	errs := parallel(jobs, func(j job) error {
		out, rss, err := runPly(ctx, o.Bin, repo, env, "--worktree", j.name, "--session-id", j.id, "-y", "-p", j.tag+" write your files")
		res.MaxRSS[j.n] = rss
		if err == nil && out != "done "+j.tag+"\n" {
			err = fmt.Errorf("answered %q", out)
		}
		return err
	})
	res.Wall = time.Since(t0)
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	if err := errors.Join(append(check(repo, home, jobs, o.Writes), serverFailures(srv)...)...); err != nil {
		return res, err
	}
	t0 = time.Now()
	errs = parallel(jobs, func(j job) error {
		out, _, err := runPly(ctx, o.Bin, repo, env, "-r", j.id, "-y", "-p", j.tag+" again")
		if err == nil && out != "again "+j.tag+"\n" {
			err = fmt.Errorf("resumed, answered %q", out)
		}
		return err
	})
	res.ResumeWall = time.Since(t0)
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	n, err := verify(repo, home, jobs, o.Writes)
	res.Checkpoints = n
	return res, errors.Join(err, errors.Join(serverFailures(srv)...))
}

func serverFailures(srv *fp.Server) []error {
	var errs []error
	for _, f := range srv.Failures() {
		errs = append(errs, errors.New("fake provider: "+f))
	}
	return errs
}

// parallel runs fn for every job at once and returns the errors, each
// naming its job.
func parallel(jobs []job, fn func(job) error) []error {
	var wg sync.WaitGroup
	errs := make([]error, len(jobs))
	for _, j := range jobs {
		wg.Go(func() {
			if err := fn(j); err != nil {
				errs[j.n] = fmt.Errorf("%s: %w", j.name, err)
			}
		})
	}
	wg.Wait()
	return errs
}

// runPly runs ply in dir and returns its standard output and peak RSS.
func runPly(ctx context.Context, bin, dir string, env []string, args ...string) (string, int64, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	rss := int64(0)
	if cmd.ProcessState != nil {
		rss = MaxRSS(cmd.ProcessState)
	}
	if err != nil {
		return stdout.String(), rss, fmt.Errorf("ply %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), rss, nil
}

// makeRepo makes the repository the fleet works on: a few committed files.
func makeRepo(ctx context.Context, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		return err
	}
	for name, body := range map[string]string{"README": "shared\n", "src/main.go": "package main\n\nfunc main() {}\n"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "."},
		{"-c", "user.name=fleet", "-c", "user.email=fleet@example.com", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "start"},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", args[0], err, out)
		}
	}
	return nil
}

// check looks at what the first runs left: each worktree holds the
// repository's files and its own, none of another's; each transcript
// loads without a warning and records its worktree.
func check(repo, home string, jobs []job, writes int) []error {
	var errs []error
	for _, j := range jobs {
		wt := filepath.Join(repo, filepath.FromSlash(worktree.Dir), j.name)
		want := []string{"README", "src/main.go"}
		for r := range writes {
			want = append(want, j.file(r))
		}
		sort.Strings(want)
		if got, err := files(wt); err != nil || !slices.Equal(got, want) {
			errs = append(errs, fmt.Errorf("%s: worktree holds %v (%v), want %v", j.name, got, err, want))
		}
		tr, err := transcript(home, wt, j.id)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", j.name, err))
			continue
		}
		if w := tr.Meta.Worktree; w == nil || w.Name != j.name {
			errs = append(errs, fmt.Errorf("%s: transcript records worktree %+v", j.name, w))
		}
	}
	if got, err := files(repo); err != nil || !slices.Equal(got, []string{"README", "src/main.go"}) {
		errs = append(errs, fmt.Errorf("the main work tree holds %v (%v)", got, err))
	}
	return errs
}

// transcript loads a session's transcript, failing on any warning.
func transcript(home, wt, id string) (*session.Transcript, error) {
	sum, err := session.Find(home, wt, id)
	if err != nil {
		return nil, err
	}
	tr, err := session.Load(sum.Path)
	if err != nil {
		return nil, err
	}
	if len(tr.Warnings) > 0 {
		return nil, fmt.Errorf("transcript %s: %v", sum.Path, tr.Warnings)
	}
	return tr, nil
}

// verify checks the resumed transcripts (the resumed prompt and answer at
// their end) and every checkpoint of every worktree's store, and returns
// how many checkpoints it verified.
func verify(repo, home string, jobs []job, writes int) (int, error) {
	var errs []error
	n := 0
	for _, j := range jobs {
		wt := filepath.Join(repo, filepath.FromSlash(worktree.Dir), j.name)
		tr, err := transcript(home, wt, j.id)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s after resume: %w", j.name, err))
			continue
		}
		// prompt, writes+1 calls and results, the answer; then the
		// resumed prompt and its answer.
		if got, want := len(tr.History), 2*(writes+1)+4; got != want {
			errs = append(errs, fmt.Errorf("%s: %d history entries after resume, want %d", j.name, got, want))
		}
		store, err := core.OpenCheckpoints(home, wt, settings.Checkpointing{}, false, false)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: opening its checkpoint store: %w", j.name, err))
			continue
		}
		ids, err := store.IDs()
		if err == nil && len(ids) == 0 {
			err = errors.New("no checkpoint")
		}
		for _, id := range ids {
			if verr := store.Verify(id); verr != nil {
				err = errors.Join(err, verr)
			}
			n++
		}
		if cerr := store.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: checkpoints: %w", j.name, err))
		}
	}
	return n, errors.Join(errs...)
}

// files lists the files under dir, slash-separated, without git's.
func files(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" || p != dir && d.IsDir() && d.Name() == ".ply" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
