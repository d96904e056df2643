package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/worktree"
)

// worktreeTimeout bounds the git commands that find or make a worktree.
const worktreeTimeout = 2 * time.Minute

// parseWorktreeFlag reads --worktree, -w and --worktree=NAME at args[i]:
// the flag takes the next word as its name when that word is a valid
// worktree name (so a prompt of several words is not taken for one). It
// returns the index of the last word used and whether args[i] was the
// flag.
func (o *Options) parseWorktreeFlag(args []string, i int) (int, bool) {
	a := args[i]
	if name, ok := strings.CutPrefix(a, "--worktree="); ok {
		o.Worktree, o.WorktreeName = true, name
		o.set["worktree"] = true
		return i, true
	}
	if a != "--worktree" && a != "-w" {
		return i, false
	}
	o.Worktree = true
	o.set["worktree"] = true
	if i+1 < len(args) && worktree.ValidName(args[i+1]) == nil {
		o.WorktreeName = args[i+1]
		return i + 1, true
	}
	return i, true
}

// newWorktreeName names a worktree the user did not name: the time and a
// random suffix, so that jobs started in the same second differ.
func newWorktreeName(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// resolveWorktree moves the run into its git worktree: the one --worktree
// names (made when missing), or, for --resume of a session this folder
// does not have, the worktree of the same repository that has it.
func (c *config) resolveWorktree() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), worktreeTimeout)
	defer cancel()
	o := c.opts
	if !o.Worktree {
		if o.Resume != "" && c.home != "" {
			c.resumeInWorktree(ctx)
		}
		return 0, nil
	}
	repo, err := worktree.Open(ctx, c.workspace)
	if err != nil {
		return exitcode.Input, fmt.Errorf("--worktree: %w", err)
	}
	name := o.WorktreeName
	if name == "" {
		name = newWorktreeName(time.Now())
	}
	if err := worktree.ValidName(name); err != nil {
		return exitcode.Input, fmt.Errorf("--worktree: %w", err)
	}
	wt, made, err := repo.Create(ctx, name)
	if err != nil {
		return exitcode.Error, fmt.Errorf("--worktree: %w", err)
	}
	c.enterWorktree(repo, wt, made)
	return 0, nil
}

func (c *config) enterWorktree(repo *worktree.Repo, wt worktree.Worktree, made bool) {
	c.workspace = wt.Path
	c.worktree = &session.Worktree{Name: wt.Name, Branch: wt.Branch, Repo: repo.Root}
	verb := "working in"
	if made {
		verb = "created"
	}
	c.worktreeNotice = fmt.Sprintf("ply: %s worktree %s (branch %s) at %s", verb, wt.Name, wt.Branch, wt.Path)
}

// resumeInWorktree looks for the session --resume names in the other work
// trees of the repository holding the workspace (its main work tree and
// ply's worktrees) when the workspace has no such session, and moves the
// run there. Finding nothing changes nothing: the session core then says
// that the session was not found.
func (c *config) resumeInWorktree(ctx context.Context) {
	if _, err := session.Find(c.home, c.workspace, c.opts.Resume); !errors.Is(err, session.ErrNotFound) {
		return
	}
	repo, err := worktree.Open(ctx, c.workspace)
	if err != nil {
		return
	}
	list, err := repo.List(ctx)
	if err != nil {
		return
	}
	if _, err := session.Find(c.home, repo.Root, c.opts.Resume); err == nil {
		c.workspace = repo.Root
		c.worktreeNotice = "ply: session " + c.opts.Resume + " works in " + repo.Root + ": resuming there"
		return
	}
	for _, wt := range list {
		if _, err := session.Find(c.home, wt.Path, c.opts.Resume); err == nil {
			c.enterWorktree(repo, wt, false)
			return
		}
	}
}

// worktreeListCommand is `ply worktree list`.
func worktreeListCommand(ctx context.Context, args []string, sio IO) int {
	if len(args) > 0 {
		return fail(sio, exitcode.Input, "usage: ply worktree list")
	}
	repo, code, err := openRepo(ctx, sio)
	if err != nil {
		return fail(sio, code, "ply worktree list: "+err.Error())
	}
	list, err := repo.List(ctx)
	if err != nil {
		return fail(sio, exitcode.Error, "ply worktree list: "+err.Error())
	}
	if len(list) == 0 {
		fmt.Fprintln(sio.Stdout, "No worktrees: ply --worktree NAME makes one.")
		return 0
	}
	tw := tabwriter.NewWriter(sio.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBRANCH\tCHANGES\tPATH")
	for _, wt := range list {
		changes := "?"
		if n, err := repo.Changes(ctx, wt.Path); err == nil {
			changes = fmt.Sprint(n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", wt.Name, wt.Branch, changes, wt.Path)
	}
	if err := tw.Flush(); err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	return 0
}

func worktreeRemoveCommand(ctx context.Context, args []string, sio IO) int {
	const usage = "usage: ply worktree remove [--force] NAME"
	force := false
	var names []string
	for _, a := range args {
		switch {
		case a == "--force" || a == "-f":
			force = true
		case strings.HasPrefix(a, "-"):
			return fail(sio, exitcode.Input, fmt.Sprintf("ply worktree remove: unknown flag %s\n%s", a, usage))
		default:
			names = append(names, a)
		}
	}
	if len(names) != 1 {
		return fail(sio, exitcode.Input, usage)
	}
	repo, code, err := openRepo(ctx, sio)
	if err != nil {
		return fail(sio, code, "ply worktree remove: "+err.Error())
	}
	wt, err := repo.Find(ctx, names[0])
	if err == nil {
		err = repo.Remove(ctx, names[0], force)
	}
	var dirty *worktree.DirtyError
	switch {
	case errors.As(err, &dirty), errors.Is(err, worktree.ErrNotFound):
		return fail(sio, exitcode.Input, "ply worktree remove: "+err.Error())
	case err != nil:
		return fail(sio, exitcode.Error, "ply worktree remove: "+err.Error())
	}
	fmt.Fprintf(sio.Stdout, "removed worktree %s; its branch %s is kept (git branch -D %s deletes it)\n", wt.Name, wt.Branch, wt.Branch)
	return 0
}

// openRepo opens the repository of the working directory for the
// worktree commands.
func openRepo(ctx context.Context, sio IO) (*worktree.Repo, int, error) {
	_, dir, err := locate(sio)
	if err != nil {
		return nil, exitcode.Config, err
	}
	repo, err := worktree.Open(ctx, dir)
	if err != nil {
		return nil, exitcode.Input, err
	}
	return repo, 0, nil
}
