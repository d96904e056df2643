package headless

import (
	"context"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
)

// printerKey carries the running loop's printer to the tools it runs, so
// that a subagent's loop started by one of them prints nested in it.
type printerKey struct{}

// Nested runs a subagent's loop for prompt, with the same rules as Run
// (caps, cancellation, loop guards), and returns its result message
// instead of printing it: the caller turns it into the parent call's
// result.
//
// When ctx comes from a headless run's tool batch, the subagent's
// messages go into that run's output (stream-json and json), marked with
// parent_tool_use_id = parentCallID, and its progress lines are indented
// under the parent's (text). Otherwise (the TUI), only cfg.Stderr gets
// progress lines, when the format is text.
func Nested(ctx context.Context, cfg Config, rounds Rounds, tools ToolRunner, prompt []llm.Part, parentCallID string) Result {
	cfg.PartialMessages = false
	var res Result
	sink := nestedSink{below: discard{}, final: &res}
	if cfg.Format == FormatText {
		sink.below = &textSink{stderr: cfg.Stderr}
	}
	p := &printer{cfg: cfg}
	if parent, ok := ctx.Value(printerKey{}).(*printer); ok {
		p.parent = parent
		sink = nestedSink{below: parent.sink, indent: "  ↳ ", final: &res}
	}
	p.sink = sink
	if parentCallID != "" {
		id := parentCallID
		p.parentID = &id
	}
	r := &run{cfg: cfg, start: time.Now(), out: p}
	r.drive(ctx, rounds, tools, loop.Input{Parts: prompt, Type: client.UserQuery, Model: cfg.Model})
	if p.parent != nil {
		p.parent.addNested(*r.totalUsage())
	}
	return res
}
