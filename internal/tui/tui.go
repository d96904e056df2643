// Package tui is ply's interactive entry layer: it owns the agent loop for
// a person at a terminal — send the prompt, collect the tool calls, run
// them, send their results back, stop when the model asks for no tool —
// and renders it with Bubble Tea while it runs.
//
// Like the headless entry, it does not speak HTTP and never touches the
// conversation history: the command builds the layers and hands them in,
// and every change to history goes through the client it was given.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
)

// Rounds is the client as the loop drives it: one round per call.
type Rounds = loop.Rounds

// ToolRunner runs one batch of calls and returns one outcome per call, in
// call order. The scheduler behind it reports progress through OnUpdate
// and asks through the UI's Approver.
type ToolRunner = loop.Tools

// Config describes the session the UI shows. Every callback is optional:
// a command whose callback is nil says it is not available.
type Config struct {
	Model          string
	PermissionMode string
	Version        string
	// NoColor renders without colour or other styling (NO_COLOR).
	NoColor bool
	// Notice, when set, is shown under the title at start (what folder
	// trust left out, or that the folder was just trusted).
	Notice string
	// Root is the workspace root: @path completion and the approval
	// dialog's diffs of write_file read under it.
	Root string
	// History is the conversation so far (a resumed session); it is shown
	// above the prompt at start.
	History []llm.Message
	// First, when set (or FirstType is client.Retry), is sent at start:
	// a resumed session's interrupted turn goes on without a new prompt.
	First     []llm.Part
	FirstType client.SendType
	// FirstPrompt, when set (-i), is submitted at start as if typed.
	FirstPrompt string
	// Recorder, when set, keeps the session's record of each
	// interaction's loop: checkpoints at round boundaries, compressions,
	// the results of a batch cut short (Esc, a hook that stopped it),
	// cancellations and inbox rounds.
	Recorder loop.Recorder
	// TurnCap is the per-turn tool-call cap (model.maxToolCallsPerTurn).
	// When the model reaches it, the user is asked whether to go on; yes
	// raises it. Nil: the interaction ends there.
	TurnCap loop.TurnCap

	// Session is the session the UI drives, probed for its controls and
	// what its commands reach (session.go): the approval mode, the
	// model, /compress (which may take a model round-trip; the UI calls
	// it off its own goroutine), the rules, the saved sessions, …
	Session Session
	// Background work (inbox.go): Inbox, when set, holds the rounds no
	// user typed (notifications, schedules, teammates); each starts when
	// the UI is idle, but a teammate's message that arrives while tools
	// run joins their results.
	Inbox *inbox.Inbox

	// Extra is what the commands of cmd_*.go are given beyond the
	// session: the custom commands, the theme, the clock.
	Extra Extra

	// In and Out are the terminal; nil means the process's own.
	In  io.Reader
	Out io.Writer
	// Stderr gets the one line printed when the UI itself fails, after
	// the terminal is restored; nil means discard.
	Stderr io.Writer
	// Size, when non-zero, is the initial window size; tests without a
	// terminal use it.
	Width, Height int
}

// UI is one interactive session. Build it first so that the scheduler can
// be given its OnUpdate and Approver, then call Run.
type UI struct {
	cfg Config

	mu   sync.Mutex
	prog *tea.Program
	// last is the model after Run, for Summary.
	last *model
}

// New returns the UI for cfg.
func New(cfg Config) *UI { return &UI{cfg: cfg} }

// send delivers msg to the running program; before Run and after it
// returns, it is dropped, so a late callback from a tool cannot block.
func (u *UI) send(msg tea.Msg) {
	u.mu.Lock()
	p := u.prog
	u.mu.Unlock()
	if p != nil {
		p.Send(msg)
	}
}

// Notice shows a line of information (a hook's message, say) in the
// conversation; it is how other layers speak without writing to the
// screen behind Bubble Tea's back.
func (u *UI) Notice(text string) { u.send(noticeMsg{text: text}) }

// Run shows the UI until the user quits or ctx ends, and returns the
// process exit code.
func (u *UI) Run(ctx context.Context, rounds Rounds, tools ToolRunner) int {
	m := newModel(u.cfg, &driver{rounds: rounds, tools: tools, send: u.send, cfg: u.cfg})
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if u.cfg.In != nil {
		opts = append(opts, tea.WithInput(u.cfg.In))
	}
	if u.cfg.Out != nil {
		opts = append(opts, tea.WithOutput(u.cfg.Out))
	}
	if u.cfg.Width > 0 && u.cfg.Height > 0 {
		opts = append(opts, tea.WithWindowSize(u.cfg.Width, u.cfg.Height))
	}
	p := tea.NewProgram(m, opts...)
	u.mu.Lock()
	u.prog = p
	u.mu.Unlock()
	watched, stopWatch := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		u.watchBoth(stopWatch) // mcp_wait.go
	}()
	_, err := p.Run()
	close(stopWatch)
	<-watched
	u.mu.Lock()
	u.prog = nil
	u.mu.Unlock()
	// Bubble Tea has restored the terminal by now, also after a panic in
	// Update or View, so stderr is safe to write to again. After a panic
	// Run returns no model, so stop the interaction through our own
	// reference, and make the session durable before reporting.
	m.cancelRunning()
	m.drv.wait()
	u.mu.Lock()
	u.last = m
	u.mu.Unlock()
	if errors.Is(err, tea.ErrProgramPanic) && u.cfg.Recorder != nil {
		u.cfg.Recorder.Checkpoint()
	}
	switch {
	case err == nil, errors.Is(err, tea.ErrInterrupted):
		return exitcode.OK
	case errors.Is(err, context.Canceled), errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return exitcode.Cancelled
	default:
		if u.cfg.Stderr != nil {
			fmt.Fprintf(u.cfg.Stderr, "ply: the interactive UI failed: %v\n", err)
		}
		return exitcode.Error
	}
}
