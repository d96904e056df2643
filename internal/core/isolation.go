package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/worktree"
)

// maxReportedFiles bounds the files a worktree subagent's report lists.
const maxReportedFiles = 20

// isolated is the git worktree a subagent with worktree isolation works
// in: the repository, the worktree and the commit it started from, the
// tools bound to it and the policy that confines paths to it.
type isolated struct {
	repo   *worktree.Repo
	wt     worktree.Worktree
	base   string
	tools  map[string]tools.Tool
	policy scheduler.Policy
	close  func()
}

// isolate makes a worktree for a subagent of def, from the commit checked
// out in the parent's workspace, with tools of its own bound to it.
// Anything that fails is the task's failure: the subagent never runs in
// the parent's workspace instead.
func (s *subagents) isolate(ctx context.Context, def agent.Definition) (*isolated, error) {
	if s.cfg == nil || s.policy == nil {
		return nil, errors.New("this session cannot run subagents in worktrees")
	}
	repo, err := worktree.Open(ctx, s.env.Workspace)
	if err != nil {
		return nil, fmt.Errorf("a worktree subagent needs the workspace to be a git repository: %w", err)
	}
	wt, _, err := repo.Create(ctx, isolatedName(def.Name))
	if err != nil {
		return nil, err
	}
	iso := &isolated{repo: repo, wt: wt, base: wt.Head, close: func() {}}
	ws, err := tools.NewWorkspace(wt.Path)
	if err != nil {
		return nil, fmt.Errorf("opening worktree %s: %w", wt.Name, err)
	}
	cfg := s.cfg
	shell := tools.NewShell(ws)
	shell.SetEnv(cfg.ChildEnv)
	shell.SetOutputLimit(cfg.Settings.Tools.ShellOutputLimit)
	if cfg.Home != "" {
		shell.SetCacheDir(filepath.Join(cfg.Home, "sandbox-cache"))
	}
	cleanup, err := setupSandbox(cfg.Sandbox, cfg.AllowUnsandboxed, ws, shell, cfg.Getenv, cfg.Stderr)
	if err != nil {
		return nil, err
	}
	iso.close = func() {
		stopJobs(shell, cfg.Stderr)
		cleanup()
	}
	pc := s.policyCfg
	pc.Workspace, pc.Mode = ws, s.policy.Mode()
	own, err := permission.New(pc)
	if err != nil {
		iso.close()
		return nil, fmt.Errorf("the worktree subagent's permission policy: %w", err)
	}
	iso.policy = worktreePolicy{parent: s.policy, own: own}
	iso.tools = map[string]tools.Tool{}
	for _, t := range []tools.Tool{
		tools.NewListDirectory(ws), tools.NewReadFile(ws), tools.NewGrep(ws), tools.NewGlob(ws),
		tools.NewReadManyFiles(ws), tools.NewEdit(ws), tools.NewWriteFile(ws), shell,
	} {
		iso.tools[t.Name()] = t
	}
	return iso, nil
}

// isolatedName names a subagent's worktree: agent-, its definition's
// name and a random suffix.
func isolatedName(def string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	def = strings.Map(func(r rune) rune {
		if r == '_' {
			return '-'
		}
		return r
	}, def)
	if len(def) > 40 {
		def = def[:40]
	}
	return "agent-" + strings.Trim(def, "-") + "-" + hex.EncodeToString(b[:])
}

// registry is the parent's tools with those bound to the workspace
// replaced by the worktree's.
func (iso *isolated) registry(parent *tools.Registry) *tools.Registry {
	reg := tools.NewRegistry()
	for _, n := range parent.Names() {
		t, _ := parent.Lookup(n)
		if own, ok := iso.tools[n]; ok {
			t = own
		}
		if parent.IsDeferred(n) {
			reg.Defer(t)
		} else {
			reg.Register(t)
		}
	}
	return reg
}

// report says where the subagent worked and what it changed: its branch
// and a diff summary against the commit it started from. A worktree left
// with no change and no commit is removed, with its branch.
func (iso *isolated) report(ctx context.Context) string {
	// The report is made even when the task was cancelled: the work in
	// the worktree is the user's.
	ctx = context.WithoutCancel(ctx)
	sum, err := iso.repo.Diff(ctx, iso.wt.Path, iso.base)
	if err != nil {
		return fmt.Sprintf("Worked in git worktree %s (branch %s) at %s; its changes could not be read: %v", iso.wt.Name, iso.wt.Branch, iso.wt.Path, err)
	}
	if len(sum.Files) == 0 {
		if head, err := iso.repo.Find(ctx, iso.wt.Name); err == nil && head.Head == iso.base {
			if iso.repo.Remove(ctx, iso.wt.Name, false) == nil {
				_ = iso.repo.DeleteBranch(ctx, iso.wt.Branch, iso.base)
				return fmt.Sprintf("Worked in a git worktree of its own and changed nothing; the worktree %s was removed.", iso.wt.Name)
			}
		}
	}
	var b strings.Builder
	short := iso.base
	if len(short) > 12 {
		short = short[:12]
	}
	fmt.Fprintf(&b, "Worked in git worktree %s on branch %s (from %s) at %s: %s.", iso.wt.Name, iso.wt.Branch, short, iso.wt.Path, sum)
	for i, f := range sum.Files {
		if i == maxReportedFiles {
			fmt.Fprintf(&b, "\n  … and %d more", len(sum.Files)-i)
			break
		}
		switch {
		case f.Binary:
			fmt.Fprintf(&b, "\n  %s (binary)", f.Path)
		default:
			fmt.Fprintf(&b, "\n  %s +%d -%d", f.Path, f.Added, f.Deleted)
		}
		if f.Untracked {
			b.WriteString(" (new, uncommitted)")
		}
	}
	b.WriteString("\nThe changes are on that branch and in that worktree, not in this workspace: merge or cherry-pick them to use them.")
	return b.String()
}

// worktreePolicy is a worktree subagent's policy: the parent's says which
// tools may be called at all (what it withholds stays withheld), and one
// of the same mode and rules, with the worktree as its workspace, decides
// each call.
type worktreePolicy struct {
	parent scheduler.Policy
	own    *permission.Policy
}

func (p worktreePolicy) Enabled(name string) (bool, string) {
	if ok, why := p.parent.Enabled(name); !ok {
		return ok, why
	}
	return p.own.Enabled(name)
}

func (p worktreePolicy) Check(ctx context.Context, c *scheduler.Call) (scheduler.Verdict, string) {
	return p.own.Check(ctx, c)
}

func (p worktreePolicy) CheckConfined(ctx context.Context, c *scheduler.Call) (scheduler.Verdict, string, tools.Confinement) {
	return p.own.CheckConfined(ctx, c)
}
