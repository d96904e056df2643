package tools

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/envpolicy"
	"github.com/plyhq/ply/internal/procgroup"
	"github.com/plyhq/ply/internal/safegit"
	"github.com/plyhq/ply/internal/sandbox"
	"github.com/plyhq/ply/internal/shell"
)

// DefaultConfinedEnv is the environment added to a confined (auto-approved,
// read-only) command: git's settings that run programs or reach the
// network are turned off through GIT_CONFIG_COUNT/KEY/VALUE, which git
// reads after every configuration file, so a repository's own config
// (a committed bare repository's, say) cannot override them, and git
// takes optional locks (the index refresh of git status) no more.
//
// Drivers with names of the repository's choosing (filter, textconv,
// external diff) are switched off per command by safegit.Overrides,
// which reads the repository's configuration.
func DefaultConfinedEnv() []string {
	return append(shell.SafeGitEnv(nil), "GIT_OPTIONAL_LOCKS=0", "PAGER=cat")
}

// confinedUnset are variables removed from a confined command's
// environment: they name programs git runs, or carry configuration that
// DefaultConfinedEnv's GIT_CONFIG_COUNT would clash with.
var confinedUnset = []string{
	"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
	"GIT_PROXY_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", // prefixes
}

// SetConfinedEnv replaces DefaultConfinedEnv as the variables added to a
// confined command's environment (after confinedUnset's are removed).
// Call it before the first Execute.
func (t *Shell) SetConfinedEnv(env []string) { t.confinedEnv = env }

// SetTempDir makes every later command run with TMPDIR set to dir (the
// private temporary directory of a sandboxed session); "" leaves TMPDIR
// as ply's. Call it before the first Execute.
func (t *Shell) SetTempDir(dir string) { t.tempDir = dir }

// confineEnviron returns env without confinedUnset's variables, with add
// appended and TMPDIR set to tmp when tmp is not "".
func confineEnviron(env, add []string, tmp string) []string {
	out := make([]string, 0, len(env)+len(add)+1)
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		drop := name == "TMPDIR" && tmp != ""
		for _, u := range confinedUnset {
			if name == u || (strings.HasSuffix(u, "_") && strings.HasPrefix(name, u)) {
				drop = true
			}
		}
		if !drop {
			out = append(out, e)
		}
	}
	out = append(out, add...)
	if tmp != "" {
		out = append(out, "TMPDIR="+tmp)
	}
	return out
}

// readOnlyUnavailable logs once that the kernel cannot confine
// auto-approved commands, which then run unconfined: the permission
// policy lets them run unasked there only when the user accepted that
// (--allow-unsandboxed or the user's allowUnsandboxed setting).
var readOnlyUnavailable sync.Once

// command prepares cmd to run in its own session, which is also its own
// process group: the group can be killed as a whole, and without a
// controlling terminal a program that wants a password (sudo, ssh) fails at
// once instead of stopping on the terminal until the timeout. The command
// and everything it starts are tied to ply's life (sandbox.GuardTree). start starts it, confined when
// the sandbox or confined asks for it (sandbox.Start).
//
// level ConfineReadOnly runs it under the read-only profile when the
// kernel has one, ConfineWorkspace under the workspace sandbox (or not at
// all); a private temporary directory is then created, and cleanup
// removes it: call cleanup once the command is done, whatever happened.
func (t *Shell) command(command, dir string, w *os.File, level Confinement) (cmd *exec.Cmd, start func() error, cleanup func(), err error) {
	cmd = exec.Command(t.shell, "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = w, w // one pipe: the interleaving is the real one
	procgroup.Prepare(cmd)
	env := t.env
	if env == nil {
		env = envpolicy.Environ()
	}
	cmd.Env = append(slices.Clip(env),
		"PLY=1",
		// Nothing can answer a pager or a prompt.
		"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0",
	)
	if t.tempDir != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+t.tempDir)
	}
	policy, cleanup := t.sandbox, func() {}
	switch level {
	case Unconfined:
	case ConfineReadOnly:
		policy, cleanup, err = t.confine(cmd)
	case ConfineWorkspace:
		policy, cleanup, err = t.confineWorkspace(cmd)
	default:
		err = fmt.Errorf("unknown confinement %d", level)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	// Tied to ply's life: the caller calls started once it has started.
	sandbox.GuardTree(cmd)
	start = cmd.Start
	if policy != nil {
		p := *policy
		start = func() error { return sandbox.Start(cmd, p) }
	}
	return cmd, start, cleanup, nil
}

// started ties cmd, which has just started, to ply's life: the guardian
// tracks its process group (Linux), and its tree is made (procgroup;
// on Windows a job object that ends with ply). When the tree cannot be
// made the command is killed and the error returned.
func started(cmd *exec.Cmd) error {
	sandbox.Track(cmd.Process.Pid)
	return procgroup.Started(cmd)
}

// confine prepares cmd for the read-only profile: a private temporary
// directory, which cleanup removes, and the confined environment (git's
// program-running settings off). When the kernel has no such profile it
// says so once and returns t's own policy with the same environment: the
// user accepted running the command unconfined.
func (t *Shell) confine(cmd *exec.Cmd) (policy *sandbox.Policy, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", "ply-ro-")
	if err != nil {
		return nil, nil, fmt.Errorf("create the private temporary directory: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	env := t.confinedEnv
	if env == nil {
		env = DefaultConfinedEnv()
	}
	cmd.Env = confineEnviron(cmd.Env, env, tmp)
	// Looking up the repository's drivers costs a git process: only a
	// command that names git pays it (a read-only command names every
	// program it runs).
	if slices.ContainsFunc(cmd.Args, func(a string) bool { return strings.Contains(a, "git") }) {
		cmd.Env = safegit.Overrides(context.Background(), cmd.Dir, cmd.Env)
	}
	if err := sandbox.ReadOnlyAvailable(); err != nil {
		readOnlyUnavailable.Do(func() {
			slog.Warn("auto-approved read-only commands run unconfined, as the user accepted: the kernel has no read-only profile", "err", err)
		})
		return t.sandbox, cleanup, nil
	}
	ro := sandbox.ReadOnlyPolicy(tmp)
	ro.ReadableDirs = t.readableDirs()
	return &ro, cleanup, nil
}

// readableDirs are the directories a read-only command may read beyond
// the system's: the workspace, the folders made readable to the read
// tools (skills, the session's saved outputs) and, under --sandbox, what
// sandboxed commands may write.
func (t *Shell) readableDirs() []string {
	dirs := append(slices.Clone(t.ws.Roots()), t.ws.ReadOnlyRoots()...)
	if t.sandbox != nil {
		dirs = append(dirs, t.sandbox.WritableDirs...)
	}
	if t.tempDir != "" {
		dirs = append(dirs, t.tempDir)
	}
	return dirs
}
