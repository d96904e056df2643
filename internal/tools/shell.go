package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/plyhq/ply/internal/procgroup"
	"github.com/plyhq/ply/internal/sandbox"
	"github.com/plyhq/ply/internal/shell"
)

const (
	shellDefaultTimeout = 120_000 // ms
	shellMaxTimeout     = 600_000 // ms; larger values are clamped
	// shellMaxOutput caps the output kept for the model, by default: two
	// fifths from the start (what ran) and the rest from the end (the
	// error, the summary), which matters most. Every later request carries
	// it; the whole output is saved with the session (SetOutputDir).
	shellMaxOutput = 16_000
	// shellKillGrace is how long a process group gets between SIGTERM and
	// SIGKILL.
	shellKillGrace = time.Second
	// shellDrainGrace is how long output is still read after the shell
	// exits. A process it left behind may hold the pipe open forever; the
	// answer must not wait for it.
	shellDrainGrace = 200 * time.Millisecond
)

// Shell is the run_shell_command tool. It owns the background jobs it
// starts; Close ends them.
type Shell struct {
	// escalation: the arguments asking to leave auto mode's sandbox are
	// declared (OfferEscalation).
	escalation atomic.Bool
	ws         *Workspace
	shell      string // bash, or sh when there is no bash
	jobs       shellJobs
	// sandbox, when set, confines every command; refusal, when set, is
	// why no command may run at all. Both are set before the first call.
	sandbox *sandbox.Policy
	refusal string
	// env is every command's environment; nil means ply's own without
	// the variables envpolicy withholds by default.
	env []string
	// tempDir, when set, is every command's TMPDIR.
	tempDir string
	// confinedEnv is added to the environment of a confined command
	// (WithConfinement); nil means DefaultConfinedEnv.
	confinedEnv []string
	// maxOutput caps the output kept for the model (0: shellMaxOutput);
	// outputDir, when set, receives the whole output of a command that
	// passed it.
	maxOutput int
	outputDir string
	// terminals, when set, runs unconfined foreground commands in an
	// editor's terminals (shell_terminal.go).
	terminals Terminals
	// cacheRoot holds the workspace sandbox's per-project caches
	// (shell_auto.go).
	cacheRoot string
}

// SetOutputLimit caps the characters of a command's output kept for the
// model; 0 restores the default. Call it before the first Execute.
func (t *Shell) SetOutputLimit(n int) { t.maxOutput = n }

// SetOutputDir makes the whole output of a foreground command that
// passes the limit saved in dir (created when needed), and the note in its
// answer name the file. Call it before the first Execute.
func (t *Shell) SetOutputDir(dir string) { t.outputDir = dir }

// SetEnv makes env ("NAME=value" entries) the environment of every later
// command, before the few variables the tool always sets. Call it before
// the first Execute.
func (t *Shell) SetEnv(env []string) { t.env = env }

// SetSandbox makes every later command, foreground or background, run
// confined by p; nil runs them unconfined. Call it before the first
// Execute.
func (t *Shell) SetSandbox(p *sandbox.Policy) { t.sandbox = p }

// SetRefusal makes every later command fail with reason instead of
// running, for when the sandbox that was asked for cannot be had; ""
// lets them run again. Call it before the first Execute.
func (t *Shell) SetRefusal(reason string) { t.refusal = reason }

// Refusal returns why the shell refuses every command ("" when it runs
// them).
func (t *Shell) Refusal() string { return t.refusal }

// NewShell returns the run_shell_command tool over ws.
func NewShell(ws *Workspace) *Shell {
	sh := "/bin/sh"
	if p, err := exec.LookPath("bash"); err == nil {
		sh = p
	} else if p, err := exec.LookPath("sh"); err == nil {
		sh = p
	}
	return &Shell{ws: ws, shell: sh}
}

func (*Shell) Name() string { return "run_shell_command" }
func (*Shell) Kind() Kind   { return KindExecute }

func (t *Shell) Description() string {
	d := fmt.Sprintf(shellDescription, cmp.Or(t.maxOutput, shellMaxOutput))
	if t.sandbox != nil {
		d += "\n\nCommands run in a sandbox: they may read anywhere but write only below " + strings.Join(t.sandbox.WritableDirs, ", ")
		if !t.sandbox.AllowNetwork {
			d += ", and they cannot create sockets (no network, no Unix-socket connections)"
		}
		d += "; a write elsewhere fails with \"Permission denied\"."
		if t.sandbox.ScopeSignals {
			d += " A command can signal only processes it started itself: stop a background job with " + TaskStopName + ", not with kill from a later command."
		}
	}
	return d
}

const shellDescription = `This tool executes a given shell command as ` + "`bash -c <command>`" + `, in its own process group, with standard input closed.

The command runs in the workspace root unless directory is given. Standard output and standard error are combined; the answer holds the command, the output (at most %d characters: the beginning and, larger, the end are kept), the exit code, the signal if it was killed, and any error.

A non-zero exit code is not a failure of the tool: read it. The command is killed, with every process it started, when it runs longer than timeout (default 120000 ms, at most 600000 ms).

Use is_background: true for long-running processes that do not finish on their own (development servers, watchers, daemons such as "npm run dev" or "python -m http.server"); the call returns at once with a job ID: read its output with ` + TaskOutputName + ` (when it is among your tools: a run where no command can go to the background leaves it out), stop it with ` + TaskStopName + `. Use the foreground (the default) for commands that finish (builds, tests, git, installs).

Prefer the dedicated tools for reading (read_file), searching file contents (grep_search), finding files (glob) and editing files over cat, grep, find and sed.`

var shellSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "Exact bash command to execute as ` + "`bash -c <command>`" + `."
    },
    "description": {
      "type": "string",
      "description": "Brief description of the command for the user, in a few words."
    },
    "directory": {
      "type": "string",
      "description": "Directory to run the command in, absolute or relative to the workspace root; it must exist inside the workspace. Defaults to the workspace root."
    },
    "is_background": {
      "type": "boolean",
      "description": "Whether to run the command in the background and return at once (for servers, watchers and other processes that do not exit by themselves). Defaults to false."
    },
    "timeout": {
      "type": ["number", "string"],
      "exclusiveMinimum": 0,
      "description": "Timeout in milliseconds for a foreground command (default 120000). Values above 600000 are clamped to 600000. Ignored for background commands."
    }
  },
  "required": ["command"],
  "additionalProperties": false
}`)

// escalationProps are the arguments that ask to run a command outside
// auto mode's sandbox; they are declared only while that mode holds
// (OfferEscalation), so that no other mode's requests carry them.
const escalationProps = `
    "run_outside_sandbox": {
      "type": "boolean",
      "description": "Ask to run this command outside the sandbox, unconfined. Only after the same command failed because the sandbox refused it (its result says so) and the task needs it; give justification. The user is asked; where no one can be asked it is refused. Defaults to false."
    },
    "justification": {
      "type": "string",
      "description": "With run_outside_sandbox: one line, shown to the user, saying why the command must run outside the sandbox (what it needs: a path, a host)."
    },`

// shellEscalationSchema is shellSchema with escalationProps.
var shellEscalationSchema = json.RawMessage(strings.Replace(string(shellSchema), `
    "timeout": {`, escalationProps+`
    "timeout": {`, 1))

// OfferEscalation declares (on) or withdraws the arguments that ask to
// run a command outside auto mode's sandbox; the session calls it when
// the approval mode changes, before it rebuilds the tool list.
func (t *Shell) OfferEscalation(on bool) { t.escalation.Store(on) }

func (t *Shell) Schema() json.RawMessage {
	if t != nil && t.escalation.Load() {
		return shellEscalationSchema
	}
	return shellSchema
}

type shellParams struct {
	Command      string   `json:"command"`
	Description  string   `json:"description"`
	Directory    *string  `json:"directory"`
	IsBackground bool     `json:"is_background"`
	Timeout      *float64 `json:"timeout"`
	// RunOutsideSandbox and Justification are for the permission policy,
	// which asks the user before such a call runs unconfined.
	RunOutsideSandbox bool   `json:"run_outside_sandbox"`
	Justification     string `json:"justification"`
}

// ConcurrencySafe reports whether the command only reads, so that it may
// run alongside other tools.
func (*Shell) ConcurrencySafe(args json.RawMessage) bool {
	var p shellParams
	if decodeArgs(args, &p) != nil {
		return false
	}
	return shell.IsReadOnly(p.Command)
}

func (t *Shell) Execute(ctx context.Context, args json.RawMessage, out Output) (Result, error) {
	var p shellParams
	if r := searchDecodeArgs(args, &p); r != nil {
		return *r, nil
	}
	if strings.TrimSpace(p.Command) == "" {
		return Errorf("INVALID_TOOL_PARAMS", "command must not be empty"), nil
	}
	timeout, clamped := time.Duration(shellDefaultTimeout)*time.Millisecond, false
	if p.Timeout != nil {
		ms := *p.Timeout
		if ms <= 0 || math.IsNaN(ms) {
			return Errorf("INVALID_TOOL_PARAMS", "timeout must be a positive number of milliseconds, got %v", ms), nil
		}
		if ms > shellMaxTimeout {
			ms, clamped = shellMaxTimeout, true
		}
		timeout = time.Duration(ms * float64(time.Millisecond))
	}
	dir, _, r := searchResolve(t.ws, p.Directory, true, false)
	if r != nil {
		return *r, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if t.refusal != "" {
		return Errorf("SHELL_SANDBOX_UNAVAILABLE", "Command: %s\nError: not run: %s", p.Command, t.refusal), nil
	}
	if p.IsBackground {
		return t.startBackground(p.Command, dir, ConfinementOf(ctx))
	}
	res, ok, err := t.inTerminal(ctx, p.Command, dir, timeout)
	if !ok {
		res, err = t.run(ctx, p.Command, dir, timeout, out)
	}
	if clamped {
		res.Output += fmt.Sprintf("\nNote: the requested timeout of %v ms was above the maximum and was clamped to %d ms.", *p.Timeout, shellMaxTimeout)
	}
	return res, err
}

// run runs a foreground command to its end, its timeout or ctx's end.
func (t *Shell) run(ctx context.Context, command, dir string, timeout time.Duration, out Output) (Result, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return Errorf("SHELL_EXECUTE_ERROR", "cannot create the output pipe: %v", err), nil
	}
	level := ConfinementOf(ctx)
	var guard *guardSnapshot
	if level == ConfineWorkspace {
		guard = snapshotGuarded(t.ws.Roots())
	}
	cmd, start, cleanup, err := t.command(command, dir, w, level)
	if err == nil {
		defer cleanup()
		err = start()
		if err == nil {
			err = started(cmd)
		}
	}
	if err != nil {
		r.Close()
		w.Close()
		return Errorf("SHELL_EXECUTE_ERROR", "Command: %s\nError: cannot start %s: %v", command, t.shell, err), nil
	}
	w.Close() // the children hold the write end now; EOF when they are gone
	defer procgroup.Done(cmd.Process.Pid)

	capture := newShellCapture(cmp.Or(t.maxOutput, shellMaxOutput))
	if t.outputDir != "" {
		capture.open = shellOutputFile(t.outputDir, CallID(ctx))
	}
	defer capture.close()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		shellCopy(r, capture, out)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	pgid := cmd.Process.Pid
	var timedOut bool
	select {
	case <-exited:
	case <-timer.C:
		timedOut = true
		shellKillGroup(pgid, exited)
	case <-ctx.Done():
		shellKillGroup(pgid, exited)
	}
	select {
	case <-readDone:
	case <-time.After(shellDrainGrace):
	}
	r.Close()
	<-readDone

	code, sig := shellExitStatus(cmd.ProcessState)
	res, err := shellResult(ctx, command, dir, capture.String(), code, sig, timedOut, timeout)
	if level == ConfineWorkspace && (code != 0 || sig != "") && ctx.Err() == nil {
		if note := sandboxRefusalNote(capture.String(), t.ws.Roots()); note != "" {
			res.Output += "\n" + note
		}
	}
	if guard != nil {
		res.Output += guard.restore()
	}
	return res, err
}

// shellResult is the answer for a foreground command that ended with
// output, code or signal sig, having timed out or not.
func shellResult(ctx context.Context, command, dir, output string, code int, sig string, timedOut bool, timeout time.Duration) (Result, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Command: %s\nDirectory: %s\nOutput: ", command, dir)
	if output == "" {
		sb.WriteString("(empty)\n")
	} else {
		sb.WriteString(output)
		if !strings.HasSuffix(output, "\n") {
			sb.WriteByte('\n')
		}
	}
	if sig != "" {
		fmt.Fprintf(&sb, "Exit code: (none)\nSignal: %s\n", sig)
	} else {
		fmt.Fprintf(&sb, "Exit code: %d\n", code)
	}
	res := Result{Display: fmt.Sprintf("Exit code %d", code)}
	switch {
	case ctx.Err() != nil:
		sb.WriteString("Error: the command was cancelled and its process group killed.\n")
		res.IsError, res.ErrorType = true, "EXECUTION_CANCELLED"
	case timedOut:
		fmt.Fprintf(&sb, "Error: the command timed out after %d ms; its process group was killed.\n", timeout.Milliseconds())
		res.IsError, res.ErrorType = true, "SHELL_TIMEOUT"
		res.Display = fmt.Sprintf("Timed out after %d ms", timeout.Milliseconds())
	case sig != "":
		res.Display = "Killed by " + sig
	}
	res.Output = strings.TrimSuffix(sb.String(), "\n")
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// shellKillGroup ends the process group led by pgid: SIGTERM, then SIGKILL
// after a grace period or as soon as the leader is gone (members that
// ignore SIGTERM must not survive it). It returns once the leader has been
// reaped, which exited reports.
func shellKillGroup(pgid int, exited <-chan error) {
	procgroup.Term(pgid)
	select {
	case <-exited:
	case <-time.After(shellKillGrace):
		procgroup.Kill(pgid)
		<-exited
		return
	}
	// The group outlives its leader while any member is alive; a pgid is
	// not reused meanwhile, so this reaches only the stragglers.
	procgroup.Kill(pgid)
}

// shellExitStatus returns the exit code, or the signal name when the
// process was killed by one (the code is then -1).
func shellExitStatus(ps *os.ProcessState) (code int, signal string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, shellSignalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

func shellSignalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGILL: "SIGILL", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
		syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV",
		syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	}
	if n, ok := names[s]; ok {
		return fmt.Sprintf("%s (%s)", n, s)
	}
	return fmt.Sprintf("signal %d (%s)", int(s), s)
}

// shellCopy moves output from r to the capture and the live output until r
// fails (EOF or closed).
func shellCopy(r io.Reader, c *shellCapture, out Output) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.Write(buf[:n])
			if out != nil {
				_, _ = out.Write(buf[:n]) // a failing display must not stop the command
			}
		}
		if err != nil {
			return
		}
	}
}

// startBackground starts command and returns at once; the job manager
// keeps its output and its process group.
func (t *Shell) startBackground(command, dir string, level Confinement) (Result, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return Errorf("SHELL_EXECUTE_ERROR", "cannot create the output pipe: %v", err), nil
	}
	cmd, start, cleanup, err := t.command(command, dir, w, level)
	var job *shellJob
	if err == nil {
		job, err = t.jobs.start(cmd, start, r, command, dir, t.outputDir, cleanup)
	}
	w.Close()
	if err != nil {
		r.Close()
		return Errorf("SHELL_EXECUTE_ERROR", "Command: %s\nError: cannot start in the background: %v", command, err), nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Command: %s\nDirectory: %s\nStarted in the background as job %s, PID %d (process group %d).\n", command, dir, job.id, job.pid, job.pid)
	if note := job.out.fileNote(); note != "" {
		sb.WriteString(note + " (the whole output, as it comes; read_file reads it)\n")
	}
	fmt.Fprintf(&sb, "Read its new output, status and exit code with %s (task_id %q; block: true waits for it to end); stop it and every process it started with %s. It is stopped when the session ends.",
		TaskOutputName, job.id, TaskStopName)
	return Result{
		Output:  sb.String(),
		Display: fmt.Sprintf("Background job %s (PID %d)", job.id, job.pid),
	}, nil
}

// Jobs lists the background jobs, oldest first, with the output kept so
// far.
func (t *Shell) Jobs() []ShellJob { return t.jobs.list() }

// KillJob ends the process group of the background job id and waits for
// it.
func (t *Shell) KillJob(id string) error { return t.jobs.kill(id) }

// SetOnJobEnd makes f hear of each background job's end, once, with its
// status and last lines (for a notification to the model). f runs on the
// job's own goroutine and must return soon. Call it before the first
// Execute.
func (t *Shell) SetOnJobEnd(f func(TaskInfo)) {
	t.jobs.mu.Lock()
	defer t.jobs.mu.Unlock()
	t.jobs.onEnd = f
}

// Close kills every background job still running and waits for them.
// Background commands are refused afterwards.
func (t *Shell) Close() error { return t.jobs.close() }

// Warm starts the guardian that ties commands to ply's life
// (sandbox.StartGuardian), which the first command would otherwise
// start, and wait for, itself.
func (t *Shell) Warm() { sandbox.StartGuardian() }
