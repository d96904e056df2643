package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// fakeHooks is a ToolHooks built from optional functions; it records the
// names it was called with.
type fakeHooks struct {
	pre   func(c *Call) (PreDecision, error)
	post  func(c *Call) string
	batch func(calls []*Call) (bool, string)

	mu      sync.Mutex
	preSeen []string
	posts   []string
	batches int
}

func (h *fakeHooks) PreToolUse(_ context.Context, c *Call) (PreDecision, error) {
	h.mu.Lock()
	h.preSeen = append(h.preSeen, c.CallID)
	h.mu.Unlock()
	if h.pre == nil {
		return PreDecision{}, nil
	}
	return h.pre(c)
}

func (h *fakeHooks) PostToolUse(_ context.Context, c *Call) string {
	h.mu.Lock()
	h.posts = append(h.posts, c.CallID)
	h.mu.Unlock()
	if h.post == nil {
		return ""
	}
	return h.post(c)
}

func (h *fakeHooks) PostToolBatch(_ context.Context, calls []*Call) (bool, string) {
	h.mu.Lock()
	h.batches++
	h.mu.Unlock()
	for _, c := range calls {
		if !c.State().Terminal() {
			panic("PostToolBatch saw a call in state " + string(c.State()))
		}
	}
	if h.batch == nil {
		return false, ""
	}
	return h.batch(calls)
}

// hookedTools is a registry with an edit tool and a read tool that echo
// their tag, counting executions.
func hookedTools(ran *[]string, mu *sync.Mutex) *tools.Registry {
	tool := func(name string, k tools.Kind) *fakeTool {
		return &fakeTool{name: name, kind: k, run: func(_ context.Context, tag string, _ tools.Output) (tools.Result, error) {
			mu.Lock()
			*ran = append(*ran, tag)
			mu.Unlock()
			return tools.Result{Output: "ran " + tag}, nil
		}}
	}
	return tools.NewRegistry(tool("edit", tools.KindEdit), tool("read", tools.KindRead))
}

func TestToolHooksPreToolUse(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	reg := hookedTools(&ran, &mu)
	verdicts := func(m map[string]PreDecision) *fakeHooks {
		return &fakeHooks{pre: func(c *Call) (PreDecision, error) { return m[c.CallID], nil }}
	}

	t.Run("deny", func(t *testing.T) {
		ran = nil
		var published []State
		s := New(reg, WithPolicy(YOLO{}), WithHooks(verdicts(map[string]PreDecision{"d": {Verdict: HookDeny, Reason: "no edits on Fridays"}})),
			WithOnUpdate(func(c *Call) {
				if c.CallID == "d" {
					published = append(published, c.State())
				}
			}))
		calls := mustRun(t, s, req("edit", "d"), req("edit", "ok"))
		c := calls[0]
		if c.ErrorType() != ErrorTypeExecutionDenied || !strings.Contains(c.Response().Output, "denied by a PreToolUse hook") ||
			!strings.Contains(c.Response().Output, "Reason: no edits on Fridays") {
			t.Errorf("denied call: %s %q", c.ErrorType(), c.Response().Output)
		}
		if !slices.Equal(published, []State{StateError}) {
			t.Errorf("a denied call was published as %v; it must go straight to error", published)
		}
		if !slices.Equal(ran, []string{"ok"}) {
			t.Errorf("ran %v", ran)
		}
	})

	t.Run("ask holds in yolo and over allow-always", func(t *testing.T) {
		ran = nil
		var asked []string
		ap := approverFunc(func(_ context.Context, c *Call) (Decision, error) {
			asked = append(asked, c.CallID+":"+c.HookDecision().Reason)
			return Decision{Outcome: OutcomeAllowAlways}, nil
		})
		h := verdicts(map[string]PreDecision{"1": {Verdict: HookAsk, Reason: "touches CI"}, "2": {Verdict: HookAsk}})
		s := New(reg, WithPolicy(YOLO{}), WithApprover(ap), WithHooks(h))
		mustRun(t, s, req("read", "1"))
		mustRun(t, s, req("read", "2"), req("read", "3"))
		if !slices.Equal(asked, []string{"1:touches CI", "2:"}) {
			t.Errorf("asked %v", asked)
		}
		if len(ran) != 3 {
			t.Errorf("ran %v", ran)
		}
	})

	t.Run("ask without an approver", func(t *testing.T) {
		s := New(reg, WithPolicy(YOLO{}), WithHooks(verdicts(map[string]PreDecision{"1": {Verdict: HookAsk, Reason: "prod"}})))
		c := mustRun(t, s, req("read", "1"))[0]
		out := c.Response().Output
		if c.ErrorType() != ErrorTypeExecutionDenied || !strings.Contains(out, "A PreToolUse hook requires the user's approval") ||
			!strings.Contains(out, "Reason: prod") || strings.Contains(out, DefaultApprovalHint) {
			t.Errorf("got %s %q", c.ErrorType(), out)
		}
	})

	t.Run("allow skips the ask but not a deny", func(t *testing.T) {
		ran = nil
		policy := policyFunc{check: func(c *Call) (Verdict, string) {
			if c.CallID != "asked" {
				return VerdictDeny, "policy says no"
			}
			return VerdictAsk, ""
		}}
		h := verdicts(map[string]PreDecision{"asked": {Verdict: HookAllow}, "denied": {Verdict: HookAllow}, "hookasks": {Verdict: HookAsk, Reason: "hook"}})
		// No approver: without the hook's allow the first call would fail.
		s := New(reg, WithPolicy(policy), WithHooks(h))
		calls := mustRun(t, s, req("edit", "asked"), req("edit", "denied"), req("edit", "hookasks"))
		if c := calls[2]; c.ErrorType() != ErrorTypeExecutionDenied || !strings.Contains(c.Response().Output, "denied by the permission policy. Reason: policy says no") {
			t.Errorf("policy deny with a hook's ask: %s %q", c.ErrorType(), c.Response().Output)
		}
		if calls[0].State() != StateSuccess {
			t.Errorf("allowed call: %s %q", calls[0].State(), calls[0].Response().Output)
		}
		if c := calls[1]; c.ErrorType() != ErrorTypeExecutionDenied || !strings.Contains(c.Response().Output, "policy says no") {
			t.Errorf("policy deny bypassed: %s %q", c.ErrorType(), c.Response().Output)
		}
		if !slices.Equal(ran, []string{"asked"}) {
			t.Errorf("ran %v", ran)
		}
	})

	t.Run("updated input", func(t *testing.T) {
		ran = nil
		h := verdicts(map[string]PreDecision{
			"a": {UpdatedInput: json.RawMessage(`{"tag":"rewritten"}`)},
			"b": {Verdict: HookAllow, UpdatedInput: json.RawMessage(`{"tag":1}`)},
		})
		s := New(reg, WithPolicy(YOLO{}), WithHooks(h))
		calls := mustRun(t, s, req("edit", "a"), req("edit", "b"))
		if string(calls[0].Params) != `{"tag":"rewritten"}` || calls[0].Response().Output != "ran rewritten" {
			t.Errorf("rewritten call: params %s, output %q", calls[0].Params, calls[0].Response().Output)
		}
		if c := calls[1]; c.ErrorType() != ErrorTypeInvalidParams || !strings.Contains(c.Response().Output, "A PreToolUse hook rewrote the arguments") ||
			!strings.Contains(c.Response().Output, `parameter "tag" must be string`) {
			t.Errorf("invalid rewrite: %s %q", c.ErrorType(), c.Response().Output)
		}
		if !slices.Equal(ran, []string{"rewritten"}) {
			t.Errorf("ran %v", ran)
		}
	})

	t.Run("hook error fails closed", func(t *testing.T) {
		ran = nil
		h := &fakeHooks{pre: func(*Call) (PreDecision, error) { return PreDecision{}, errors.New("boom") }}
		c := mustRun(t, New(reg, WithPolicy(YOLO{}), WithHooks(h)), req("read", "x"))[0]
		if c.ErrorType() != ErrorTypeExecutionDenied || !strings.Contains(c.Response().Output, "boom") || len(ran) != 0 {
			t.Errorf("got %s %q, ran %v", c.ErrorType(), c.Response().Output, ran)
		}
	})

	t.Run("invalid calls never reach the hook", func(t *testing.T) {
		h := &fakeHooks{}
		mustRun(t, New(reg, WithPolicy(YOLO{}), WithHooks(h)),
			Request{CallID: "bad", Name: "edit", Args: `{"tag":`}, req("nope", "unknown"), req("read", "good"))
		if !slices.Equal(h.preSeen, []string{"good"}) {
			t.Errorf("hook saw %v", h.preSeen)
		}
	})

	t.Run("cancelled while hooks run", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		h := &fakeHooks{pre: func(*Call) (PreDecision, error) { cancel(); return PreDecision{}, nil }}
		calls, err := New(reg, WithPolicy(YOLO{}), WithHooks(h)).Run(ctx, []Request{req("read", "x")})
		if !errors.Is(err, context.Canceled) || calls[0].State() != StateCancelled {
			t.Errorf("err %v, state %s", err, calls[0].State())
		}
	})
}

func TestToolHooksPostToolUse(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	h := &fakeHooks{
		pre: func(c *Call) (PreDecision, error) {
			if c.CallID == "denied" {
				return PreDecision{Verdict: HookDeny}, nil
			}
			return PreDecision{}, nil
		},
		post: func(c *Call) string {
			if c.CallID == "quiet" {
				return ""
			}
			return "lint: 2 warnings in " + c.CallID
		},
	}
	s := New(hookedTools(&ran, &mu), WithPolicy(YOLO{}), WithHooks(h))
	calls := mustRun(t, s, req("edit", "a"), req("edit", "quiet"), req("edit", "denied"), req("read", "r1"), req("read", "r2"))
	if got := calls[0].Response().Output; got != "ran a\n\nlint: 2 warnings in a" {
		t.Errorf("output with context = %q", got)
	}
	if got := calls[1].Response().Output; got != "ran quiet" {
		t.Errorf("quiet output = %q", got)
	}
	slices.Sort(h.posts)
	if !slices.Equal(h.posts, []string{"a", "quiet", "r1", "r2"}) {
		t.Errorf("PostToolUse ran for %v; it must skip calls that did not execute", h.posts)
	}
	if h.batches != 1 {
		t.Errorf("PostToolBatch ran %d times", h.batches)
	}
}

func TestToolHooksPostToolBatch(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	reg := hookedTools(&ran, &mu)

	t.Run("stop", func(t *testing.T) {
		h := &fakeHooks{batch: func(calls []*Call) (bool, string) { return len(calls) == 2, "tests are red" }}
		s := New(reg, WithPolicy(YOLO{}), WithHooks(h))
		calls, err := s.Run(context.Background(), []Request{req("edit", "a"), req("nope", "b")})
		var stopped *BatchStoppedError
		if !errors.As(err, &stopped) || stopped.Reason != "tests are red" {
			t.Fatalf("err = %v, want a *BatchStoppedError", err)
		}
		for _, c := range calls {
			if !c.State().Terminal() || !strings.HasSuffix(c.Response().Output,
				"[A PostToolBatch hook stopped the agent after this batch of tool calls. Reason: tests are red.]") {
				t.Errorf("%s: %s %q", c.CallID, c.State(), c.Response().Output)
			}
		}
		if calls[0].Response().IsError || calls[0].State() != StateSuccess {
			t.Errorf("a stop must not turn a success into an error: %s", calls[0].State())
		}
		// The next batch is not stopped.
		if _, err := s.Run(context.Background(), []Request{req("edit", "c")}); err != nil {
			t.Errorf("next batch: %v", err)
		}
	})

	t.Run("not run for an empty batch or a cancelled one", func(t *testing.T) {
		h := &fakeHooks{}
		s := New(reg, WithPolicy(YOLO{}), WithHooks(h))
		mustRun(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _ = s.Run(ctx, []Request{req("edit", "a")})
		if h.batches != 0 {
			t.Errorf("PostToolBatch ran %d times", h.batches)
		}
	})
}
