package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/plyhq/ply/internal/envpolicy"
	"github.com/plyhq/ply/internal/procgroup"
)

// Limits on what one hook may print. Past them, output is read and
// dropped, so that a chatty hook cannot stall on a full pipe.
const (
	maxStdout = 1 << 20
	maxStderr = 64 << 10
)

// waitDelay bounds how long a finished (or killed) hook may hold its
// output pipes open through a process that left its group.
const waitDelay = 2 * time.Second

// Reasons a hook yields a Warning instead of a decision; match them with
// errors.Is on Warning.Err.
var (
	ErrTimeout    = errors.New("timed out")
	ErrCrashed    = errors.New("crashed")
	ErrExitStatus = errors.New("failed")
	ErrBadOutput  = errors.New("printed unusable output")
	ErrNotRun     = errors.New("could not run")
	// ErrIgnored: a valid answer the event cannot honour.
	ErrIgnored = errors.New("answer ignored")
)

// Warning reports a hook that failed and was treated as giving no
// decision, or a decision the event cannot honour.
type Warning struct {
	Event   string
	Command string
	Err     error
}

func (w Warning) Error() string {
	if w.Command == "" {
		return fmt.Sprintf("%s hooks: %v", w.Event, w.Err)
	}
	return fmt.Sprintf("%s hook %q %v", w.Event, abbreviate(w.Command, 80), w.Err)
}

func (w Warning) Unwrap() error { return w.Err }

// Options configure a Runner.
type Options struct {
	// Dir is the workspace: every hook's working directory, its
	// $PLY_PROJECT_DIR and $CLAUDE_PROJECT_DIR, and the input's "cwd".
	// Empty means the current directory.
	Dir string
	// SessionID and TranscriptPath go into every input; SetSession
	// changes them later.
	SessionID      string
	TranscriptPath string
	// PermissionMode goes into every input ("default", "yolo", ...),
	// unless Mode is set.
	PermissionMode string
	// Mode, when set, gives the approval mode as each hook runs, since
	// the session may change it.
	Mode fmt.Stringer
	// Env is the hooks' base environment; nil means ply's own without
	// the variables envpolicy withholds by default.
	Env []string
	// OnWarning receives every Warning as it happens; nil logs it with
	// slog at level Warn. It may be called from several goroutines.
	OnWarning func(Warning)
	// OnMessage receives a hook's "systemMessage" for the user; nil logs
	// it with slog at level Info.
	OnMessage func(event, text string)
	// HTTPClient sends http hooks; nil means a client of its own that
	// follows no redirect. Each hook's timeout bounds its request.
	HTTPClient *http.Client
}

// Runner runs the configured hooks. It is safe for concurrent use; a nil
// *Runner has no hooks, so callers need not check whether any are
// configured.
type Runner struct {
	opts   Options
	env    []string
	events map[string][]group
	client *http.Client

	mu             sync.Mutex
	sessionID      string
	transcriptPath string

	// stopActive is Claude Code's stop_hook_active: the last Stop hook
	// blocked, so the model is now working on its reason.
	stopActive atomic.Bool
}

type group struct {
	m     matcher
	hooks []Command
}

// NewRunner compiles cfg. It fails on a matcher that does not compile;
// hooks of unsupported types are skipped with a Warning.
func NewRunner(cfg Config, opts Options) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("hooks: working directory: %w", err)
		}
		opts.Dir = wd
	}
	r := &Runner{opts: opts, events: make(map[string][]group), sessionID: opts.SessionID, transcriptPath: opts.TranscriptPath,
		client: opts.HTTPClient}
	if r.client == nil {
		// The event goes to the URL the user wrote, not wherever it
		// redirects: a 3xx is a failed hook.
		r.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	env := opts.Env
	if env == nil {
		env = envpolicy.Environ()
	}
	// Later entries win in os/exec, so these override inherited ones.
	r.env = append(slices.Clip(env), "PLY_PROJECT_DIR="+opts.Dir, "CLAUDE_PROJECT_DIR="+opts.Dir)
	for event, groups := range cfg {
		for _, g := range groups {
			m, _ := compileMatcher(g.Matcher) // Validate compiled it
			var cmds []Command
			for _, h := range g.Hooks {
				if h.Type != "" && h.Type != "command" && h.Type != TypeHTTP {
					r.warn(Warning{Event: event, Command: h.Command, Err: fmt.Errorf("%w: hook type %q is not supported; skipped", ErrNotRun, h.Type)})
					continue
				}
				if h.Timeout <= 0 {
					h.Timeout = DefaultTimeout
				}
				cmds = append(cmds, h)
			}
			if len(cmds) > 0 {
				r.events[event] = append(r.events[event], group{m, cmds})
			}
		}
	}
	return r, nil
}

// SetSession changes the session id and transcript path sent to hooks
// (after a resume or a /clear).
func (r *Runner) SetSession(id, transcriptPath string) {
	r.mu.Lock()
	r.sessionID, r.transcriptPath = id, transcriptPath
	r.mu.Unlock()
}

// Has reports whether any hook is configured for event, so that callers
// can skip building an expensive input.
func (r *Runner) Has(event string) bool {
	return r != nil && len(r.events[event]) > 0
}

// Run runs every hook of event that matches in, in parallel, and combines
// their answers (see Decision). Hooks that fail contribute a Warning,
// which is also passed to Options.OnWarning. The error is non-nil only
// when ctx ended before every hook finished; the hooks still running were
// killed and the Decision holds what the others said.
func (r *Runner) Run(ctx context.Context, event string, in Input) (Decision, error) {
	cmds := r.matching(event, in)
	if len(cmds) == 0 {
		return Decision{}, nil
	}
	payload, err := r.payload(event, in)
	if err != nil {
		return Decision{}, err
	}
	answers := make([]Decision, len(cmds))
	var wg sync.WaitGroup
	for i, h := range cmds {
		wg.Go(func() { answers[i] = r.exec(ctx, event, h, payload) })
	}
	wg.Wait()
	var d Decision
	for _, a := range answers {
		d.merge(a)
	}
	for _, w := range d.Warnings {
		r.warn(w)
	}
	for _, m := range d.Messages {
		r.message(event, m)
	}
	if err := ctx.Err(); err != nil {
		return d, fmt.Errorf("hooks: %s interrupted: %w", event, err)
	}
	return d, nil
}

// matching returns the hooks of event whose group matches in, each
// command once: Claude Code runs a command listed twice only once.
func (r *Runner) matching(event string, in Input) []Command {
	if r == nil {
		return nil
	}
	var out []Command
	seen := make(map[string]bool)
	for _, g := range r.events[event] {
		if !groupMatches(g.m, event, in) {
			continue
		}
		for _, h := range g.hooks {
			if k := h.key(); !seen[k] {
				seen[k] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// groupMatches applies a matcher to the event's subject.
func groupMatches(m matcher, event string, in Input) bool {
	switch event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return m.match(in.ToolName)
	case PostToolBatch:
		return slices.ContainsFunc(in.ToolCalls, func(c BatchCall) bool { return m.match(c.ToolName) })
	case SessionStart:
		return m.match(in.Source)
	case SessionEnd:
		return m.match(in.Reason)
	case Notification:
		return m.match(in.NotificationType)
	case SubagentStart, SubagentStop:
		return m.match(in.AgentType)
	case PreCompact, PostCompact:
		return m.match(in.Trigger)
	}
	return true // Claude Code ignores the matcher of the other events
}

// payload is the JSON sent on the hook's stdin: in, with the fields every
// event carries filled in.
func (r *Runner) payload(event string, in Input) ([]byte, error) {
	r.mu.Lock()
	if in.SessionID == "" {
		in.SessionID = r.sessionID
	}
	if in.TranscriptPath == "" {
		in.TranscriptPath = r.transcriptPath
	}
	r.mu.Unlock()
	if in.CWD == "" {
		in.CWD = r.opts.Dir
	}
	if in.PermissionMode == "" {
		in.PermissionMode = r.opts.PermissionMode
		if r.opts.Mode != nil {
			in.PermissionMode = r.opts.Mode.String()
		}
	}
	in.HookEventName = event
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("hooks: encode %s input: %w", event, err)
	}
	return b, nil
}

// errHookTimeout is the cause of a hook's context when its timeout fired,
// telling it apart from the caller's cancellation.
var errHookTimeout = errors.New("hook timeout")

// exec runs one hook and turns its exit status and output into its
// Decision. It never fails: every problem becomes a Warning.
func (r *Runner) exec(ctx context.Context, event string, h Command, payload []byte) Decision {
	if h.Type == TypeHTTP {
		return r.post(ctx, event, h, payload)
	}
	warn := func(err error) Decision {
		return Decision{Warnings: []Warning{{Event: event, Command: h.Command, Err: err}}}
	}
	hctx, cancel := context.WithTimeoutCause(ctx, h.Timeout, errHookTimeout)
	defer cancel()

	cmd := exec.CommandContext(hctx, "bash", "-c", h.Command)
	cmd.Dir = r.opts.Dir
	cmd.Env = r.env
	cmd.Stdin = bytes.NewReader(payload)
	stdout, stderr := &capped{max: maxStdout}, &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Its own process tree, so that a timeout kills whatever the hook
	// started, not only bash.
	procgroup.Prepare(cmd)
	cmd.Cancel = func() error {
		procgroup.Kill(cmd.Process.Pid)
		return os.ErrProcessDone
	}
	cmd.WaitDelay = waitDelay
	err := cmd.Start()
	if err == nil {
		if err = procgroup.Started(cmd); err == nil {
			defer procgroup.Done(cmd.Process.Pid)
			err = cmd.Wait()
		}
	}

	switch {
	case ctx.Err() != nil:
		return Decision{} // the caller gave up; not the hook's fault
	case errors.Is(context.Cause(hctx), errHookTimeout):
		return warn(fmt.Errorf("%w after %gs; its process group was killed", ErrTimeout, h.Timeout.Seconds()))
	case cmd.ProcessState == nil:
		return warn(fmt.Errorf("%w: %w", ErrNotRun, err))
	}
	ps := cmd.ProcessState
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return warn(fmt.Errorf("%w (killed by signal %d, %v)%s", ErrCrashed, int(ws.Signal()), ws.Signal(), stderrNote(stderr)))
	}
	switch code := ps.ExitCode(); code {
	case 0:
		// A success whose pipes a stray process held open (ErrWaitDelay)
		// still counts, with the output read until then.
	case 2:
		// Claude Code's "blocking error": stderr is the reason, stdout is
		// not read.
		return Decision{Block: true, BlockReason: strings.TrimSpace(stderr.String())}
	default:
		return warn(fmt.Errorf("%w with exit code %d%s", ErrExitStatus, code, stderrNote(stderr)))
	}
	if stdout.dropped > 0 {
		return warn(fmt.Errorf("%w: more than %d bytes on stdout", ErrBadOutput, maxStdout))
	}
	d, perr := parseOutput(event, stdout.Bytes())
	if perr != nil {
		return warn(fmt.Errorf("%w: %w", ErrBadOutput, perr))
	}
	return d
}

func stderrNote(e *capped) string {
	s := strings.TrimSpace(e.String())
	if s == "" {
		return ""
	}
	return ": " + abbreviate(s, 500)
}

func (r *Runner) warn(w Warning) {
	if r.opts.OnWarning != nil {
		r.opts.OnWarning(w)
		return
	}
	slog.Warn("hook failed; treated as no decision", "event", w.Event, "command", w.Command, "err", w.Err)
}

func (r *Runner) message(event, text string) {
	if r.opts.OnMessage != nil {
		r.opts.OnMessage(event, text)
		return
	}
	slog.Info("hook message", "event", event, "message", text)
}

// capped keeps the first max bytes written and counts the rest. The
// buffer is a field, not embedded: an embedded bytes.Buffer would lend
// capped its ReadFrom, and io.Copy would bypass the cap.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	keep := min(len(p), max(c.max-c.buf.Len(), 0))
	c.buf.Write(p[:keep])
	c.dropped += len(p) - keep
	return len(p), nil
}

func (c *capped) Bytes() []byte  { return c.buf.Bytes() }
func (c *capped) String() string { return c.buf.String() }

// abbreviate shortens s to about n bytes for a message, on a rune
// boundary.
func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
