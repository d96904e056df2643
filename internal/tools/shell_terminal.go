package tools

import (
	"cmp"
	"context"
	"errors"
	"time"
)

// Terminals runs foreground commands in the terminals of an editor that
// drives ply (ACP's terminal/*), where the user watches them. Only
// commands that would run unconfined go there: ply's sandbox and
// read-only confinement cannot follow a command into the editor's
// terminal. RunInTerminal returns errors.ErrUnsupported when it cannot
// run one, and the command runs here.
type Terminals interface {
	// RunInTerminal runs r until it exits or ctx ends; then it stops
	// the command and returns the output it had (Exited false).
	RunInTerminal(ctx context.Context, r TerminalRun) (TerminalResult, error)
}

// TerminalRun is a command for a terminal: Shell -c Command in Dir, with
// Env added to the terminal's environment and at most OutputLimit bytes
// of output kept (its end).
type TerminalRun struct {
	Shell, Command, Dir string
	Env                 []string
	OutputLimit         int
}

// TerminalResult is how a terminal's command ended.
type TerminalResult struct {
	Output   string
	Exited   bool
	ExitCode int
	Signal   string
}

// SetTerminals makes foreground commands that would run unconfined run
// in tm's terminals; nil runs every command here. Call it before the
// first Execute.
func (t *Shell) SetTerminals(tm Terminals) { t.terminals = tm }

// inTerminal runs command in the client's terminal; ok is false when the
// command must run here instead.
func (t *Shell) inTerminal(ctx context.Context, command, dir string, timeout time.Duration) (res Result, ok bool, err error) {
	if t.terminals == nil || t.sandbox != nil || Confined(ctx) {
		return Result{}, false, nil
	}
	limit := cmp.Or(t.maxOutput, shellMaxOutput)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := t.terminals.RunInTerminal(tctx, TerminalRun{
		Shell: t.shell, Command: command, Dir: dir,
		Env: []string{"PLY=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"},
		// Bytes for characters: the capture below cuts to the limit.
		OutputLimit: 4 * limit,
	})
	if errors.Is(err, errors.ErrUnsupported) {
		return Result{}, false, nil
	}
	if err != nil && ctx.Err() == nil {
		return Errorf("SHELL_EXECUTE_ERROR", "Command: %s\nError: the client's terminal failed: %v", command, err), true, nil
	}
	capture := newShellCapture(limit)
	capture.Write([]byte(r.Output))
	timedOut := !r.Exited && ctx.Err() == nil && tctx.Err() != nil
	res, err = shellResult(ctx, command, dir, capture.String(), r.ExitCode, r.Signal, timedOut, timeout)
	return res, true, err
}
