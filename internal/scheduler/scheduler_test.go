package scheduler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/tools"
)

// blockingTool runs until release is closed, announcing each start.
func blockingTool(name string, started chan<- string, release <-chan struct{}) *fakeTool {
	return &fakeTool{name: name, kind: tools.KindEdit, run: func(ctx context.Context, tag string, _ tools.Output) (tools.Result, error) {
		started <- tag
		select {
		case <-release:
			return tools.Result{Output: "done " + tag}, nil
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
	}}
}

// waitQueued waits until n Runs are queued behind the running one.
func waitQueued(t *testing.T, s *Scheduler, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.queued() != n {
		if time.Now().After(deadline) {
			t.Fatalf("queued = %d, want %d", s.queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestQueue: a Run arriving while another runs waits and then runs, in
// arrival order; a queued Run whose context ends leaves the queue with its
// calls cancelled, and the queue keeps moving.
func TestQueue(t *testing.T) {
	started := make(chan string, 10)
	release := make(chan struct{})
	s := New(tools.NewRegistry(blockingTool("w", started, release)), WithPolicy(YOLO{}))

	type result struct {
		calls []*Call
		err   error
	}
	run := func(ctx context.Context, tag string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			calls, err := s.Run(ctx, []Request{req("w", tag)})
			ch <- result{calls, err}
		}()
		return ch
	}

	a := run(context.Background(), "A")
	if got := <-started; got != "A" {
		t.Fatalf("first start = %s", got)
	}
	b := run(context.Background(), "B")
	waitQueued(t, s, 1)
	ctx, cancel := context.WithCancel(context.Background())
	c := run(ctx, "C")
	waitQueued(t, s, 2)
	d := run(context.Background(), "D")
	waitQueued(t, s, 3)

	cancel()
	rc := <-c
	if !errors.Is(rc.err, context.Canceled) || rc.calls[0].State() != StateCancelled ||
		rc.calls[0].Response().Output != CancelledMessage {
		t.Fatalf("cancelled queued Run: err %v, state %s", rc.err, rc.calls[0].State())
	}
	waitQueued(t, s, 2)
	select {
	case tag := <-started:
		t.Fatalf("%s started while A was running", tag)
	default:
	}

	close(release)
	for _, want := range []string{"B", "D"} {
		if got := <-started; got != want {
			t.Fatalf("started %s, want %s (FIFO)", got, want)
		}
	}
	for name, ch := range map[string]<-chan result{"A": a, "B": b, "D": d} {
		r := <-ch
		if r.err != nil || r.calls[0].State() != StateSuccess {
			t.Errorf("%s: err %v state %s", name, r.err, r.calls[0].State())
		}
	}
	if s.queued() != 0 {
		t.Errorf("queue not empty: %d", s.queued())
	}
}

// TestApproval walks the approver's outcomes and checks that nothing runs
// before every approval is in.
func TestApproval(t *testing.T) {
	var mu sync.Mutex
	var executed []string
	tool := func(name string) *fakeTool {
		return &fakeTool{name: name, kind: tools.KindEdit, run: func(_ context.Context, tag string, _ tools.Output) (tools.Result, error) {
			mu.Lock()
			executed = append(executed, tag)
			mu.Unlock()
			return tools.Result{Output: "ok"}, nil
		}}
	}
	reg := tools.NewRegistry(tool("edit"), tool("write"), &fakeTool{name: "read", kind: tools.KindRead})

	t.Run("outcomes", func(t *testing.T) {
		executed = nil
		var asked []string
		answers := map[string]Decision{
			"1": {Outcome: OutcomeAllowOnce},
			"2": {Outcome: OutcomeDeny, Reason: "not that file"},
			"3": {Outcome: OutcomeAllowAlways},
		}
		ap := approverFunc(func(_ context.Context, c *Call) (Decision, error) {
			asked = append(asked, c.CallID)
			if len(executed) > 0 {
				t.Errorf("call executed while %s awaited approval", c.CallID)
			}
			if c.State() != StateAwaitingApproval {
				t.Errorf("%s asked in state %s", c.CallID, c.State())
			}
			return answers[c.CallID], nil
		})
		s := New(reg, WithApprover(ap))
		calls := mustRun(t, s, req("edit", "1"), req("edit", "2"), req("write", "3"), req("read", "r"))
		if strings.Join(asked, ",") != "1,2,3" {
			t.Errorf("asked %v; read-only calls must not be asked", asked)
		}
		if calls[0].State() != StateSuccess || calls[2].State() != StateSuccess || calls[3].State() != StateSuccess {
			t.Errorf("allowed calls: %s %s %s", calls[0].State(), calls[2].State(), calls[3].State())
		}
		if c := calls[1]; c.State() != StateCancelled || !strings.Contains(c.Response().Output, "The user denied this tool call") ||
			!strings.Contains(c.Response().Output, "Reason: not that file") {
			t.Errorf("denied call: %s %q", c.State(), c.Response().Output)
		}
		// Allow always: the next write is not asked.
		asked = nil
		mustRun(t, s, req("write", "4"))
		if len(asked) != 0 {
			t.Errorf("asked again after allow-always: %v", asked)
		}
	})

	t.Run("cancel aborts the batch", func(t *testing.T) {
		executed = nil
		ap := approverFunc(func(_ context.Context, c *Call) (Decision, error) {
			if c.CallID == "2" {
				return Decision{Outcome: OutcomeCancel}, nil
			}
			return Decision{Outcome: OutcomeAllowOnce}, nil
		})
		calls := mustRun(t, New(reg, WithApprover(ap)), req("edit", "1"), req("edit", "2"), req("edit", "3"))
		for _, c := range calls {
			if c.State() != StateCancelled {
				t.Errorf("%s: %s", c.CallID, c.State())
			}
		}
		if len(executed) != 0 {
			t.Errorf("executed %v after cancel", executed)
		}
	})

	t.Run("approver error", func(t *testing.T) {
		ap := approverFunc(func(context.Context, *Call) (Decision, error) { return Decision{}, errors.New("tty gone") })
		c := mustRun(t, New(reg, WithApprover(ap)), req("edit", "1"))[0]
		if c.State() != StateError || !strings.Contains(c.Response().Output, "tty gone") {
			t.Errorf("%s %q", c.State(), c.Response().Output)
		}
	})
}

func TestToResponse(t *testing.T) {
	img := []llm.Media{{MIMEType: "image/png", Data: []byte{1, 2}}}
	tests := []struct {
		name string
		in   tools.Result
		want llm.FunctionResponse
	}{
		{"empty success", tools.Result{}, llm.FunctionResponse{ID: "i", Name: "n", Output: EmptyOutput}},
		{"blank success", tools.Result{Output: " \n"}, llm.FunctionResponse{ID: "i", Name: "n", Output: EmptyOutput}},
		{"text kept verbatim", tools.Result{Output: " a\n"}, llm.FunctionResponse{ID: "i", Name: "n", Output: " a\n"}},
		{"media stay inside", tools.Result{Media: img}, llm.FunctionResponse{ID: "i", Name: "n", Output: EmptyOutput, Media: img}},
		{"error prefixed", tools.Result{IsError: true, Output: "no such file"}, llm.FunctionResponse{ID: "i", Name: "n", Output: "Error: no such file", IsError: true}},
		{"error not prefixed twice", tools.Result{IsError: true, Output: "error: bad"}, llm.FunctionResponse{ID: "i", Name: "n", Output: "error: bad", IsError: true}},
		{"empty error", tools.Result{IsError: true, ErrorType: "X"}, llm.FunctionResponse{ID: "i", Name: "n", Output: "Error: the tool failed (X).", IsError: true}},
	}
	for _, tt := range tests {
		got := ToResponse("i", "n", tt.in)
		if got.ID != tt.want.ID || got.Name != tt.want.Name || got.Output != tt.want.Output ||
			got.IsError != tt.want.IsError || len(got.Media) != len(tt.want.Media) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestOutputBudget: over budget, the largest outputs go to files, largest
// first, until the batch fits; smaller ones are left alone.
func TestOutputBudget(t *testing.T) {
	sized := func(n int) *fakeTool {
		return &fakeTool{name: "t" + strings.Repeat("x", n%7), kind: tools.KindRead, run: func(context.Context, string, tools.Output) (tools.Result, error) {
			return tools.Result{Output: strings.Repeat("é", n/2)}, nil // 2 bytes a rune: the head must not split one
		}}
	}
	big, mid, small := sized(8000), sized(6000), sized(100)
	big.name, mid.name, small.name = "big", "mid", "small"
	reg := tools.NewRegistry(big, mid, small)

	t.Run("spill to file", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "spill")
		s := New(reg, WithOutputBudget(10_000), WithSpillDir(dir))
		calls := mustRun(t, s, req("small", "c1"), req("big", "c/2"), req("mid", "c3"))
		out := calls[1].Response().Output
		if !strings.Contains(out, "[Output truncated: 8000 bytes in total. The full output was saved to "+dir) {
			t.Fatalf("big output not replaced: %.200q", out)
		}
		if !strings.HasPrefix(out, strings.Repeat("é", spillHead/2)+"\n") {
			t.Errorf("head missing or split: %.50q", out)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "big-c_2*.txt"))
		if len(files) != 1 || filepath.Base(files[0]) != "big-c_2.txt" {
			t.Fatalf("spill files = %v", files)
		}
		if data, _ := os.ReadFile(files[0]); string(data) != strings.Repeat("é", 4000) {
			t.Errorf("spill file holds %d bytes", len(data))
		}
		if len(calls[2].Response().Output) != 6000 || len(calls[0].Response().Output) != 100 {
			t.Errorf("outputs under budget were touched")
		}
		// A replayed id does not overwrite the first file.
		again := mustRun(t, s, req("small", "c1"), req("big", "c/2"), req("mid", "c3"))
		if files, _ := filepath.Glob(filepath.Join(dir, "big-c_2*.txt")); len(files) != 2 || !strings.Contains(again[1].Response().Output, files[1]) && !strings.Contains(again[1].Response().Output, files[0]) {
			t.Fatalf("second spill of the same id: files %v", files)
		}
	})

	t.Run("unwritable dir", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "not-a-dir")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		s := New(reg, WithOutputBudget(10_000), WithSpillDir(file))
		out := mustRun(t, s, req("big", "1"), req("mid", "2"))[0].Response().Output
		if !strings.Contains(out, "the rest was dropped because it could not be saved") || len(out) > 3000 {
			t.Errorf("fallback: %.300q", out)
		}
	})

	t.Run("under budget", func(t *testing.T) {
		s := New(reg, WithSpillDir(t.TempDir()))
		if out := mustRun(t, s, req("big", "1"))[0].Response().Output; len(out) != 8000 {
			t.Errorf("output changed under budget: %d bytes", len(out))
		}
	})
}
