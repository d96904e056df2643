package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// resultIn returns the output of the tool result id that req carries.
func resultIn(t *testing.T, req *llm.Request, id string) string {
	t.Helper()
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.Response != nil && p.Response.ID == id {
				return p.Response.Output
			}
		}
	}
	t.Fatalf("the request carries no result for %s", id)
	return ""
}

// textRounds is n prompt and answer pairs of about 300 estimated tokens
// each entry.
func textRounds(n int) []llm.Message {
	long := strings.Repeat("token ", 200)
	var h []llm.Message
	for range n {
		h = append(h, userText("q "+long), llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "a " + long}}, FinishReason: llm.FinishStop})
	}
	return h
}

func lastRequest(p *scripted) *llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reqs[len(p.reqs)-1]
}

// Under pressure before a request, the older results are cut first, to
// the harshest level if need be, and the result the model just asked for
// keeps at least its floor (a quarter of the window) instead of being the
// first one cut because it is the largest.
func TestPressureCutsOlderResultsBeforeTheNewest(t *testing.T) {
	hist := []llm.Message{userText("go")}
	for _, id := range []string{"old1", "old2", "old3"} {
		hist = append(hist, toolRound(id, numbered(16<<10))...)
	}
	newest := numbered(40 << 10)
	hist = append(hist, toolRound("new", newest)...)
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}}
	c := New(p, Config{Retry: fast, ContextWindow: 16000}, hist)
	if got := drain(t, c, llm.Message{}); got.err != nil {
		t.Fatal(got.err)
	}
	req := lastRequest(p)
	got := resultIn(t, req, "new")
	if len(got) < 15000 {
		t.Errorf("the newest result went out with %d bytes of its %d; it must keep at least a quarter of the window", len(got), len(newest))
	}
	for _, id := range []string{"old1", "old2", "old3"} {
		if out := resultIn(t, req, id); !cutNote().MatchString(out) {
			t.Errorf("older result %s went out whole (%d bytes)", id, len(out))
		}
	}
	if est := estimateRequest(req); est >= 11200 {
		t.Errorf("the request is still past the threshold: %d tokens", est)
	}
}

// When the newest result dominates the history, the older conversation is
// summarised rather than the result cut: it goes out whole once the
// summary made room.
func TestPressureSummarisesBeforeCuttingTheNewest(t *testing.T) {
	hist := append(textRounds(15), toolRound("new", numbered(40<<10))...)
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}}
	c := New(p, Config{Retry: fast, ContextWindow: 16000}, hist)
	if got := drain(t, c, llm.Message{}); got.err != nil {
		t.Fatal(got.err)
	}
	if len(p.reqs) != 2 {
		t.Fatalf("%d requests; want a summary, then the request", len(p.reqs))
	}
	req := lastRequest(p)
	if got := resultIn(t, req, "new"); got != numbered(40<<10) {
		t.Errorf("the newest result went out cut to %d bytes although the summary made room for it", len(got))
	}
	if !strings.Contains(req.Messages[0].Text(), "SUMMARY") {
		t.Errorf("the request does not start with the summary: %.100q", req.Messages[0].Text())
	}
}

// A result cut under pressure is restored, whole, once a summary freed
// room for it.
func TestSummaryRestoresCutResults(t *testing.T) {
	full := numbered(16 << 10)
	hist := append(textRounds(20), toolRound("a", full)...)
	hist = append(hist, llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "read it"}}, FinishReason: llm.FinishStop})
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}}
	spill := &memSpill{}
	c := New(p, Config{Retry: fast, ContextWindow: 16000, Spill: spill}, hist)
	c.cutToolResults(context.Background(), 1)
	if out := resultIn(t, c.request(0), "a"); len(out) > 1<<10 {
		t.Fatalf("the result was not cut: %d bytes", len(out))
	}
	if got := drain(t, c, userText("go on")); got.err != nil {
		t.Fatal(got.err)
	}
	if len(p.reqs) != 2 {
		t.Fatalf("%d requests; want a summary, then the request", len(p.reqs))
	}
	if got := resultIn(t, lastRequest(p), "a"); got != full {
		t.Errorf("after the summary the result went out with %d bytes of its %d; it fits whole now", len(got), len(full))
	}
	if got := resultIn(t, &llm.Request{Messages: c.History()}, "a"); got != full {
		t.Errorf("the history keeps the cut result (%d bytes)", len(got))
	}
}

// Compress (/compress) restores what fits too.
func TestManualCompressRestoresCutResults(t *testing.T) {
	full := numbered(16 << 10)
	hist := append(textRounds(20), toolRound("a", full)...)
	hist = append(hist, llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "read it"}}, FinishReason: llm.FinishStop})
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("SUMMARY"), stop()}}}}
	c := New(p, Config{Retry: fast, ContextWindow: 16000}, hist)
	c.cutToolResults(context.Background(), 1)
	if _, ok := c.Compress(context.Background()); !ok {
		t.Fatal("not compressed")
	}
	if got := resultIn(t, &llm.Request{Messages: c.History()}, "a"); got != full {
		t.Errorf("after the summary the history keeps %d bytes of the result's %d", len(got), len(full))
	}
}

// After the provider refused a request as too long, the older results
// are cut and the older history summarised before the result the model
// just asked for is touched; it keeps at least its floor.
func TestRefusalKeepsTheNewestResult(t *testing.T) {
	hist := append(textRounds(4), toolRound("old", numbered(30<<10))...)
	hist = append(hist, toolRound("new", numbered(40<<10))...)
	refusal := &llm.APIError{Kind: llm.ErrContextLength, Status: 400, Message: "prompt is too long: 20000 tokens > 16000 maximum"}
	p := &scripted{steps: []step{{err: refusal}, {chunks: []llm.Chunk{text("SUMMARY"), stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}}
	c := New(p, Config{Retry: fast}, hist)
	if got := drain(t, c, llm.Message{}); got.err != nil {
		t.Fatal(got.err)
	}
	req := lastRequest(p)
	if got := resultIn(t, req, "new"); len(got) < 15000 {
		t.Errorf("the newest result went out with %d bytes after the refusal; it must keep at least a quarter of the window", len(got))
	}
}

// The newest result alone past the threshold is cut only as far as the
// history must shrink; when the system prompt leaves it little room, it
// still keeps its floor, a quarter of the window.
func TestNewestResultCutOnlyToItsFloor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		system string
		least  int
	}{
		{"room", "", 40 << 10},
		{"large system prompt", strings.Repeat("rule ", 7200), 16000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hist := append([]llm.Message{userText("read it")}, toolRound("new", numbered(100<<10))...)
			p := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop()}}}}
			c := New(p, Config{Retry: fast, ContextWindow: 16000, System: tc.system}, hist)
			if got := drain(t, c, llm.Message{}); got.err != nil {
				t.Fatal(got.err)
			}
			req := lastRequest(p)
			out := resultIn(t, req, "new")
			if len(out) < tc.least || !cutNote().MatchString(out) {
				t.Errorf("the newest result went out with %d bytes, want a cut keeping at least %d", len(out), tc.least)
			}
			if tc.system == "" && estimateRequest(req) >= 11200 {
				t.Errorf("cut too little: %d tokens", estimateRequest(req))
			}
		})
	}
}

// In a window that the system prompt nearly fills, a refused request is
// resent with the newest result cut below its floor rather than not at
// all: the provider's refusal is the one thing the floor gives way to.
func TestRefusalInATinyWindowCutsTheNewestDeeper(t *testing.T) {
	hist := append([]llm.Message{userText("read it")}, toolRound("new", numbered(40<<10))...)
	refusal := &llm.APIError{Kind: llm.ErrContextLength, Status: 400, Message: "prompt is too long: 15000 tokens > 8192 maximum"}
	p := &scripted{steps: []step{{err: refusal}, {chunks: []llm.Chunk{text("S"), stop()}}, {chunks: []llm.Chunk{text("ok"), stop()}}}}
	c := New(p, Config{Retry: fast, System: strings.Repeat("rule ", 3600)}, hist)
	if got := drain(t, c, llm.Message{}); got.err != nil {
		t.Fatal(got.err)
	}
	req := lastRequest(p)
	if out := resultIn(t, req, "new"); len(out) >= currentFloor(8192) || !strings.HasPrefix(out, "line 000000") {
		t.Errorf("the newest result went out with %d bytes; only a cut below the floor fits", len(out))
	}
	if len(p.reqs) != 3 {
		t.Errorf("%d requests, want the refused one, the summary and the resend", len(p.reqs))
	}
}

// The chat keeps the full text of a cut result only while the history
// holds the result.
func TestOriginalsForgottenWithTheirResults(t *testing.T) {
	hist := append([]llm.Message{userText("read it")}, toolRound("c1", numbered(50<<10))...)
	c := New(&scripted{}, Config{Retry: fast}, hist)
	c.cutToolResults(context.Background(), 1)
	if len(c.originals) != 1 {
		t.Fatalf("%d full texts kept, want the cut one", len(c.originals))
	}
	c.SetHistory(c.History())
	if len(c.originals) != 1 {
		t.Fatal("a history still holding the result lost its full text")
	}
	c.SetHistory(nil)
	if len(c.originals) != 0 {
		t.Errorf("%d full texts kept after the history was cleared", len(c.originals))
	}
}

// The current turn's results share what they may keep evenly, a small
// one leaving what it does not use to the others.
func TestEvenShare(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		keep  int
		share int
		cut   bool
	}{
		{[]int{30000, 30000, 30000, 30000}, 16000, 4000, true},
		{[]int{1000, 30000, 30000}, 16000, 7500, true},
		{[]int{1000, 2000}, 16000, 0, false},
		{[]int{20000}, 16000, 16000, true},
		{[]int{20000}, -5, 0, true},
	} {
		share, cut := evenShare(tc.sizes, tc.keep)
		if share != tc.share || cut != tc.cut {
			t.Errorf("evenShare(%v, %d) = %d, %v; want %d, %v", tc.sizes, tc.keep, share, cut, tc.share, tc.cut)
		}
	}
}

// A batch of results sent together keeps its floor between them.
func TestNewestBatchSharesItsFloor(t *testing.T) {
	batch := llm.Message{Role: llm.RoleModel, FinishReason: llm.FinishToolCalls}
	results := llm.Message{Role: llm.RoleUser}
	for _, id := range []string{"a", "b", "c", "d"} {
		batch.Parts = append(batch.Parts, llm.Part{Call: &llm.FunctionCall{ID: id, Name: "read_file", Args: "{}"}})
		results.Parts = append(results.Parts, llm.Part{Response: &llm.FunctionResponse{ID: id, Name: "read_file", Output: numbered(30 << 10)}})
	}
	hist := []llm.Message{userText("read them"), batch, results}
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop()}}}}
	c := New(p, Config{Retry: fast, ContextWindow: 16000, System: strings.Repeat("rule ", 7200)}, hist)
	if got := drain(t, c, llm.Message{}); got.err != nil {
		t.Fatal(got.err)
	}
	total := 0
	for _, id := range []string{"a", "b", "c", "d"} {
		out := resultIn(t, lastRequest(p), id)
		if len(out) < 3500 {
			t.Errorf("result %s went out with %d bytes, below its share of the floor", id, len(out))
		}
		total += len(out)
	}
	if total < currentFloor(16000) {
		t.Errorf("the batch went out with %d bytes, below its floor of %d", total, currentFloor(16000))
	}
}
