package hooks

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/plyhq/ply/internal/scheduler"
)

// ForScheduler adapts r to the scheduler's hook points:
// scheduler.New(reg, scheduler.WithHooks(hooks.ForScheduler(r))). A
// "continue": false from a PreToolUse or PostToolUse hook stops the batch
// at its end, as if PostToolBatch had asked, since stopping the agent is
// what Claude Code does with it.
func ForScheduler(r *Runner) scheduler.ToolHooks {
	return &toolHooks{r: r, stops: make(map[*scheduler.Call]string)}
}

type toolHooks struct {
	r *Runner

	mu sync.Mutex
	// stops holds the "continue": false reasons of the running batch's
	// calls. A Scheduler runs one batch at a time; calls of an
	// interrupted batch never reach PostToolBatch, so entries are keyed
	// by call and cleared at every PostToolBatch rather than trusted to
	// belong to the next batch.
	stops map[*scheduler.Call]string
}

func (h *toolHooks) PreToolUse(ctx context.Context, c *scheduler.Call) (scheduler.PreDecision, error) {
	if !h.r.Has(PreToolUse) {
		return scheduler.PreDecision{}, nil
	}
	p, stop, err := h.r.preToolUse(ctx, c.Name, c.CallID, c.Params)
	if err != nil {
		return scheduler.PreDecision{}, err
	}
	h.noteStop(c, stop)
	return scheduler.PreDecision{Verdict: toSchedulerVerdict(p.Verdict), Reason: p.Reason, UpdatedInput: p.UpdatedInput}, nil
}

// PostToolUse runs PostToolUse for a call that succeeded and
// PostToolUseFailure for one that failed, as Claude Code does.
func (h *toolHooks) PostToolUse(ctx context.Context, c *scheduler.Call) string {
	event := PostToolUse
	if c.Response().IsError {
		event = PostToolUseFailure
	}
	if !h.r.Has(event) {
		return ""
	}
	var text string
	var stop *string
	if event == PostToolUse {
		text, stop = h.r.postToolUse(ctx, c.Name, c.CallID, c.Params, toolResponse(c))
	} else {
		text, stop = h.r.postToolUseFailure(ctx, c.Name, c.CallID, c.Params, c.Response().Output, ctx.Err() != nil)
	}
	h.noteStop(c, stop)
	if text == "" {
		return ""
	}
	return "[" + event + " hook]: " + text
}

func (h *toolHooks) PostToolBatch(ctx context.Context, calls []*scheduler.Call) (bool, string) {
	h.mu.Lock()
	var earlier []string
	for _, c := range calls {
		if reason, ok := h.stops[c]; ok {
			earlier = append(earlier, reason)
		}
	}
	clear(h.stops)
	h.mu.Unlock()

	stop, reason := false, ""
	if h.r.Has(PostToolBatch) {
		bc := make([]BatchCall, len(calls))
		for i, c := range calls {
			bc[i] = BatchCall{ToolName: c.Name, ToolUseID: c.CallID, ToolInput: toolInput(c), ToolResponse: toolResponse(c)}
		}
		stop, reason = h.r.PostToolBatch(ctx, bc)
	}
	for _, r := range earlier {
		reason = join(r, reason)
	}
	return stop || len(earlier) > 0, reason
}

func (h *toolHooks) noteStop(c *scheduler.Call, reason *string) {
	if reason == nil {
		return
	}
	h.mu.Lock()
	h.stops[c] = *reason
	h.mu.Unlock()
}

func toSchedulerVerdict(v Verdict) scheduler.HookVerdict {
	switch v {
	case VerdictAllow:
		return scheduler.HookAllow
	case VerdictAsk:
		return scheduler.HookAsk
	case VerdictDeny:
		return scheduler.HookDeny
	}
	return scheduler.HookNone
}

// toolInput is the call's arguments as JSON: the validated object, or the
// model's text when it is JSON at all (a call that failed validation),
// else null.
func toolInput(c *scheduler.Call) json.RawMessage {
	switch {
	case c.Params != nil:
		return c.Params
	case c.Args != "" && json.Valid([]byte(c.Args)):
		return json.RawMessage(c.Args)
	}
	return json.RawMessage("null")
}

// toolResponse is what a hook sees of a call's result.
func toolResponse(c *scheduler.Call) json.RawMessage {
	resp := c.Response()
	b, err := json.Marshal(struct {
		Output    string `json:"output"`
		IsError   bool   `json:"is_error"`
		ErrorType string `json:"error_type,omitempty"`
		State     string `json:"state"`
	}{resp.Output, resp.IsError, c.ErrorType(), string(c.State())})
	if err != nil {
		return json.RawMessage("null") // a struct of strings always encodes
	}
	return b
}
