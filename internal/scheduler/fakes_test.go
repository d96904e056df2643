package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tagSchema accepts {"tag": "..."} and nothing else; tests use the tag to
// tell calls apart inside the tool.
const tagSchema = `{"type":"object","properties":{"tag":{"type":"string"}},"additionalProperties":false}`

// fakeTool is a tool whose behaviour a test supplies.
type fakeTool struct {
	name   string
	kind   tools.Kind
	schema string
	run    func(ctx context.Context, tag string, out tools.Output) (tools.Result, error)
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "fake " + f.name }
func (f *fakeTool) Kind() tools.Kind    { return f.kind }
func (f *fakeTool) Schema() json.RawMessage {
	if f.schema == "" {
		return json.RawMessage(tagSchema)
	}
	return json.RawMessage(f.schema)
}

func (f *fakeTool) Execute(ctx context.Context, args json.RawMessage, out tools.Output) (tools.Result, error) {
	var p struct{ Tag string }
	_ = json.Unmarshal(args, &p)
	if f.run == nil {
		return tools.Result{Output: "ok " + p.Tag}, nil
	}
	return f.run(ctx, p.Tag, out)
}

// safeTool adds an argument-dependent concurrency answer to a fakeTool.
type safeTool struct {
	*fakeTool
	safe func(json.RawMessage) bool
}

func (s *safeTool) ConcurrencySafe(args json.RawMessage) bool { return s.safe(args) }

// span is when one execution ran.
type span struct{ start, end time.Time }

func (s span) overlaps(o span) bool { return s.start.Before(o.end) && o.start.Before(s.end) }

// recorder times tool executions by tag and tracks how many run at once.
type recorder struct {
	mu      sync.Mutex
	spans   map[string]span
	running int
	peak    int
}

func newRecorder() *recorder { return &recorder{spans: make(map[string]span)} }

// tool returns a tool of kind k that sleeps for d (or until ctx ends) and
// records its span.
func (r *recorder) tool(name string, k tools.Kind, d time.Duration) *fakeTool {
	return &fakeTool{name: name, kind: k, run: func(ctx context.Context, tag string, _ tools.Output) (tools.Result, error) {
		start := time.Now()
		r.mu.Lock()
		r.running++
		r.peak = max(r.peak, r.running)
		r.mu.Unlock()
		var err error
		select {
		case <-time.After(d):
		case <-ctx.Done():
			err = ctx.Err()
		}
		r.mu.Lock()
		r.running--
		r.spans[tag] = span{start, time.Now()}
		r.mu.Unlock()
		if err != nil {
			return tools.Result{}, err // stopped before it printed anything
		}
		return tools.Result{Output: "done " + tag}, nil
	}}
}

func (r *recorder) span(t *testing.T, tag string) span {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.spans[tag]
	if !ok {
		t.Fatalf("call %q never ran", tag)
	}
	return s
}

// req builds a request whose arguments carry tag, with the tag as call id.
func req(name, tag string) Request {
	return Request{CallID: tag, Name: name, Args: fmt.Sprintf(`{"tag":%q}`, tag)}
}

// approverFunc adapts a function to Approver.
type approverFunc func(ctx context.Context, c *Call) (Decision, error)

func (f approverFunc) Approve(ctx context.Context, c *Call) (Decision, error) { return f(ctx, c) }

// policyFunc is a Policy built from two optional functions.
type policyFunc struct {
	enabled func(name string) (bool, string)
	check   func(c *Call) (Verdict, string)
}

func (p policyFunc) Enabled(name string) (bool, string) {
	if p.enabled == nil {
		return true, ""
	}
	return p.enabled(name)
}

func (p policyFunc) Check(_ context.Context, c *Call) (Verdict, string) {
	if p.check == nil {
		return VerdictAllow, ""
	}
	return p.check(c)
}

func mustRun(t *testing.T, s *Scheduler, reqs ...Request) []*Call {
	t.Helper()
	calls, err := s.Run(context.Background(), reqs)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(calls) != len(reqs) {
		t.Fatalf("Run returned %d calls for %d requests", len(calls), len(reqs))
	}
	for i, c := range calls {
		if !c.State().Terminal() {
			t.Fatalf("call %d (%s) returned in state %s", i, c.CallID, c.State())
		}
	}
	return calls
}
