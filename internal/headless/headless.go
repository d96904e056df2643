// Package headless is the non-interactive entry layer (`ply -p`): it runs
// the agent loop of package loop and prints the run as text, one JSON
// array, or stream-json lines, and maps the loop's end to a result message
// and an exit code. Subagents run through Nested, printing into their
// parent's output. The SDK's stream-json session (package sdk) runs each
// of its queries through Drive.
//
// It does not speak HTTP, parse flags, read stdin or build the layers it
// drives: the command wires those and hands them in.
package headless

import (
	"cmp"
	"context"
	"errors"
	"io"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// Output formats.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// Rounds is the client as the loop drives it.
type Rounds = loop.Rounds

// ToolRunner runs one batch of calls and returns one outcome per call, in
// call order.
type ToolRunner = loop.Tools

// Outcome is a finished call.
type Outcome = loop.Outcome

// Config describes one run.
type Config struct {
	Format         string
	SessionID      string
	Model          string
	CWD            string
	Tools          []string
	Agents         []string
	MCPServers     []MCPServer
	PermissionMode string
	Version        string
	// Skills names the skills, for the init message.
	Skills []string

	// StructuredOutput names the tool whose first successful call ends
	// the run with its arguments as the result (--json-schema); empty
	// when not used.
	StructuredOutput string

	// PartialMessages emits stream_event messages with the deltas
	// (stream-json only).
	PartialMessages bool

	// Recorder, when set, keeps the session's record of the loop: the
	// checkpoints, compressions, results a cut batch will not send,
	// cancellations and inbox rounds.
	Recorder loop.Recorder

	// Inbox, when set, holds the rounds no user typed (notifications,
	// schedules, teammates): they are sent when the model stops, and the
	// run does not end while work it holds may still post one.
	Inbox *inbox.Inbox

	// Caps; zero means none.
	MaxSessionTurns int
	MaxToolCalls    int
	MaxWallTime     time.Duration

	Stdout, Stderr io.Writer
}

// Run drives the loop for prompt and returns the process exit code. The
// first round is a user query; every later one carries tool results.
func Run(ctx context.Context, cfg Config, rounds Rounds, tools ToolRunner, prompt []llm.Part) int {
	return RunFrom(ctx, cfg, rounds, tools, prompt, client.UserQuery)
}

// RunFrom is Run with the first round's type given: a resumed session may
// start with tool results or a Retry resend.
func RunFrom(ctx context.Context, cfg Config, rounds Rounds, tools ToolRunner, first []llm.Part, typ client.SendType) int {
	r := &run{cfg: cfg, start: time.Now(), out: newPrinter(cfg)}
	r.out.init()
	code := r.drive(ctx, rounds, tools, loop.Input{Parts: first, Type: typ})
	denialHint(cfg.Stderr, r.denials)
	return code
}

// Drive runs one query of a session that prints through sink (the SDK's
// stream-json session): the loop from in, its messages and result handed
// to sink, with no init message (the session announces itself once, with
// InitMessage). It returns the tokens the query used, its subagents'
// included.
func Drive(ctx context.Context, cfg Config, sink Sink, rounds Rounds, tools ToolRunner, in loop.Input) llm.Usage {
	r := &run{cfg: cfg, start: time.Now(), out: &printer{cfg: cfg, sink: sink}}
	r.drive(ctx, rounds, tools, in)
	return *r.totalUsage()
}

// DenialCause is a cancel cause that stops a run because a call was
// denied with a request to stop there (the SDK's can_use_tool deny with
// interrupt): the run ends as an error with the cause's message, and the
// denial joins the result's permission_denials.
type DenialCause interface {
	error
	Denial() Denial
}

type run struct {
	cfg     Config
	out     *printer
	start   time.Time
	apiTime time.Duration
	// roundStart is when the running round began; zero between rounds.
	roundStart time.Time
	// rd is what the running round has shown so far (observe.go).
	rd       roundView
	usage    llm.Usage
	denials  []Denial
	lastText string
	res      loop.Result
}

// drive runs the loop from in and prints its result.
func (r *run) drive(ctx context.Context, rounds Rounds, tools ToolRunner, in loop.Input) int {
	r.res = loop.Run(ctx, loop.Config{
		Rounds: rounds, Tools: printing{tools, r.out}, Observer: r, Recorder: r.cfg.Recorder,
		Inbox: r.cfg.Inbox, AtEnd: loop.Wait, StructuredOutput: r.cfg.StructuredOutput,
		Caps: loop.Caps{MaxTurns: r.cfg.MaxSessionTurns, MaxToolCalls: r.cfg.MaxToolCalls, MaxWallTime: r.cfg.MaxWallTime},
	}, in)
	return r.end(r.res)
}

// printing runs tools with the run's printer in ctx: a subagent among the
// calls prints nested in the run's output (see Nested).
type printing struct {
	tools ToolRunner
	out   *printer
}

func (p printing) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
	return p.tools.RunTools(context.WithValue(ctx, printerKey{}, p.out), calls)
}

// end prints the result of a loop that ended with res and returns the
// exit code.
func (r *run) end(res loop.Result) int {
	switch res.Stop {
	case loop.Done, loop.Structured:
		return r.succeed()
	case loop.Cancelled:
		var denied DenialCause
		if errors.As(res.Err, &denied) {
			r.denials = append(r.denials, denied.Denial())
			return r.fail(SubtypeError, exitcode.Cancelled, denied.Error())
		}
		return r.fail(SubtypeCancelled, exitcode.Cancelled, "cancelled")
	case loop.WallTime:
		return r.fail(SubtypeMaxWallTime, exitcode.Budget, res.Message)
	case loop.MaxTurns:
		return r.fail(SubtypeMaxTurns, exitcode.TurnLimit, res.Message)
	case loop.MaxToolCalls, loop.TurnCapReached:
		// The per-turn cap is a tool-call budget: no one here can be
		// asked to raise it.
		return r.fail(SubtypeMaxToolCalls, exitcode.Budget, res.Message)
	case loop.Loop:
		return r.fail(SubtypeLoopDetected, exitcode.Budget, res.Message)
	case loop.NoStructuredOutput:
		return r.fail(SubtypeStructuredFail, exitcode.Error, res.Message)
	case loop.Unsaved:
		return r.fail(SubtypeUnsaved, exitcode.Unsaved, res.Message+unsavedAdvice(res.Err))
	case loop.ToolError:
		var stopped *scheduler.BatchStoppedError
		if errors.As(res.Err, &stopped) {
			return r.fail(SubtypeError, exitcode.ToolError, "stopped by a PostToolBatch hook: "+cmp.Or(stopped.Reason, "no reason given"))
		}
		return r.fail(SubtypeError, exitcode.ToolError, res.Message)
	default:
		return r.fail(SubtypeError, exitCodeFor(res.Err), res.Message)
	}
}

// unsavedAdvice follows the message of a run that stopped because the
// session could not be saved with err.
func unsavedAdvice(err error) string {
	fix := "Make PLY_HOME writable"
	if errors.Is(err, syscall.ENOSPC) {
		fix = "Free space where PLY_HOME is"
	}
	return "; ply stopped before running more tools, since their results could not be recorded. " + fix +
		", then resume with --continue: the transcript ends at the last record saved"
}

func exitCodeFor(err error) int {
	var api *llm.APIError
	if errors.As(err, &api) && api.Kind == llm.ErrAuth {
		return exitcode.Auth
	}
	return exitcode.Error
}

func (r *run) succeed() int {
	r.out.result(r.resultMsg(SubtypeSuccess, false, ""))
	return exitcode.OK
}

func (r *run) fail(subtype string, code int, msg string) int {
	r.out.result(r.resultMsg(subtype, true, msg))
	return code
}

// totalUsage is the loop's own usage and its subagents'.
func (r *run) totalUsage() *llm.Usage {
	u := r.usage
	if r.out != nil {
		n := r.out.nestedUsage()
		u.Add(&n)
	}
	return &u
}

// apiDuration is the time spent in rounds, the running one included.
func (r *run) apiDuration() time.Duration {
	d := r.apiTime
	if !r.roundStart.IsZero() {
		d += time.Since(r.roundStart)
	}
	return d
}

func (r *run) resultMsg(subtype string, isErr bool, msg string) Result {
	res := Result{
		Type: "result", Subtype: subtype, UUID: newUUID(), SessionID: r.cfg.SessionID,
		IsError: isErr, DurationMS: time.Since(r.start).Milliseconds(),
		DurationAPIMS: r.apiDuration().Milliseconds(), NumTurns: r.res.Turns - r.res.Background,
		Result: r.lastText, Usage: UsageOf(r.totalUsage()), PermissionDenials: r.denials,
	}
	if res.PermissionDenials == nil {
		res.PermissionDenials = []Denial{}
	}
	if r.res.Structured != nil && !isErr {
		res.Result = string(r.res.Structured)
		res.StructuredOutput = r.res.Structured
	}
	if isErr {
		res.Result = ""
		res.Error = msg
	}
	return res
}

// nonNil makes a nil list print as [], as the SDKs expect.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	// Cut on a character boundary, never inside a UTF-8 sequence.
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
