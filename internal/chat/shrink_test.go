package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
)

// memSpill records what it was asked to save.
type memSpill struct{ saved map[string]string }

func (m *memSpill) Save(_ context.Context, name, text string) (Saved, error) {
	if m.saved == nil {
		m.saved = map[string]string{}
	}
	m.saved[name+".txt"] = text
	return Saved{Path: "/sessions/s1/" + name + ".txt"}, nil
}

func toolRound(id, output string) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleModel, Parts: []llm.Part{{Call: &llm.FunctionCall{ID: id, Name: "read_file", Args: "{}"}}}, FinishReason: llm.FinishToolCalls},
		{Role: llm.RoleUser, Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: id, Name: "read_file", Output: output}}}},
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %06d\n", i)
	}
	return b.String()
}

func TestCutKeepsHeadTailAndReference(t *testing.T) {
	big := numbered(200 << 10)
	hist := append([]llm.Message{userText("read it")}, toolRound("c1", big)...)
	spill := &memSpill{}
	c := New(&scripted{}, Config{Retry: fast, Spill: spill}, hist)
	if !c.cutToolResults(context.Background(), 1) {
		t.Fatal("nothing was cut")
	}
	out := c.History()[2].Parts[0].Response.Output
	if !strings.HasPrefix(out, "line 000000\n") || !strings.HasSuffix(out, big[len(big)-100:]) {
		t.Errorf("head or tail lost: %.80q … %.80q", out, out[len(out)-80:])
	}
	if !strings.Contains(out, "saved at /sessions/s1/tool-result-c1.txt") || spill.saved["tool-result-c1.txt"] != big {
		t.Errorf("the full text should be saved and referenced: %v", cutNote().FindString(out))
	}
	if len(out) > 2<<10 {
		t.Errorf("cut to %d bytes; with a budget of 1 token the harsher level applies", len(out))
	}
	if hist[2].Parts[0].Response.Output != big {
		t.Error("the caller's history was changed in place")
	}
	// Cut again (a later recovery): the reference survives, the saved
	// text is not overwritten with the cut one.
	c.cutToolResults(context.Background(), 1)
	if spill.saved["tool-result-c1.txt"] != big {
		t.Error("a second cut overwrote the saved full text")
	}
}

func TestCutWithoutSpillerSaysTextIsGone(t *testing.T) {
	hist := append([]llm.Message{userText("read it")}, toolRound("c1", numbered(50<<10))...)
	c := New(&scripted{}, Config{Retry: fast}, hist)
	c.cutToolResults(context.Background(), 1)
	if out := c.History()[2].Parts[0].Response.Output; !strings.Contains(out, "full text is not available") {
		t.Fatalf("%.200q", cutNote().FindString(out))
	}
}

func TestCutLargestFirstAndOnlyAsMuchAsNeeded(t *testing.T) {
	hist := []llm.Message{userText("go")}
	hist = append(hist, toolRound("small", numbered(20<<10))...)
	hist = append(hist, toolRound("large", numbered(100<<10))...)
	c := New(&scripted{}, Config{Retry: fast}, hist)
	// A budget the history fits once the large result alone is cut.
	budget := EstimateTokens(hist) - 20000
	c.cutToolResults(context.Background(), budget)
	h := c.History()
	if strings.Contains(h[2].Parts[0].Response.Output, "were cut") {
		t.Error("the small result was cut although cutting the large one sufficed")
	}
	if !strings.Contains(h[4].Parts[0].Response.Output, "were cut") {
		t.Error("the large result was not cut")
	}
}

func TestProactiveCutBeforeSummary(t *testing.T) {
	hist := append([]llm.Message{userText("read it")}, toolRound("c1", numbered(100<<10))...)
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop()}}}}
	// The window is well above the cut history but below the whole one.
	c := New(p, Config{Retry: fast, ContextWindow: 10000}, hist)
	var ev *StreamEvent
	for e, err := range c.SendMessageStream(context.Background(), llm.Message{}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == EventCompressed {
			ev = &e
		}
	}
	if len(p.reqs) != 1 {
		t.Fatalf("%d requests: cutting alone should have sufficed, without a summary", len(p.reqs))
	}
	if ev == nil || ev.TokensAfter >= 7000 {
		t.Fatalf("compression event %+v", ev)
	}
}

func TestCalibrationFromReportedUsage(t *testing.T) {
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop(), {Usage: &llm.Usage{InputTokens: 0}}}}}}
	c := New(p, Config{Retry: fast}, nil)
	drain(t, c, userText(strings.Repeat("abcd", 1000)))
	if got := c.calibrated(1000); got != 1000 {
		t.Fatalf("without a usable report the estimate is unscaled, got %d", got)
	}
	est := estimateRequest(c.request(0)) // the request as sent: just the prompt
	est -= estimateMessage(&c.History()[1])
	p2 := &scripted{steps: []step{{chunks: []llm.Chunk{text("ok"), stop(), {Usage: &llm.Usage{InputTokens: 2 * est}}}}}}
	c2 := New(p2, Config{Retry: fast}, nil)
	drain(t, c2, userText(strings.Repeat("abcd", 1000)))
	if got := c2.calibrated(1000); got != 2000 {
		t.Fatalf("reported twice the estimate: 1000 should scale to 2000, got %d", got)
	}
}

func TestTooLargePromptFailsWithoutSummary(t *testing.T) {
	refusal := &llm.APIError{Kind: llm.ErrContextLength, Status: 400, Message: "prompt is too long: 50000 tokens > 8000 maximum"}
	p := &scripted{steps: []step{{err: refusal}, {chunks: []llm.Chunk{text("never"), stop()}}}}
	hist := []llm.Message{userText("earlier"), {Role: llm.RoleModel, Parts: []llm.Part{{Text: "answer"}}, FinishReason: llm.FinishStop}}
	c := New(p, Config{Retry: fast}, hist)
	got := drain(t, c, userText(strings.Repeat("word ", 40000)))
	if got.err == nil || !strings.Contains(got.err.Error(), "newest message alone") || !strings.Contains(got.err.Error(), "8000 tokens") {
		t.Fatalf("err %v", got.err)
	}
	if len(p.reqs) != 1 || got.retries != 0 {
		t.Fatalf("%d requests, %d retries: a prompt that cannot fit is not resent", len(p.reqs), got.retries)
	}
}

func FuzzCutOutput(f *testing.F) {
	f.Add(numbered(20<<10), 0)
	f.Add(strings.Repeat("é", 10<<10), 1)
	f.Add("short", 0)
	f.Add("x\n[… 12 bytes of this tool result were cut to fit the context window; somewhere …]\ny", 1)
	c := New(&scripted{}, Config{}, nil)
	f.Fuzz(func(t *testing.T, out string, level int) {
		lv := cutLevels[(level%len(cutLevels)+len(cutLevels))%len(cutLevels)]
		r := &llm.FunctionResponse{ID: "id", Output: out}
		got := c.cutOutput(context.Background(), r, lv)
		if !cutNote().MatchString(got) {
			t.Fatalf("no note in %q", got)
		}
		if len(got) > lv.head+lv.tail+400 && len(got) > len(out)+400 {
			t.Fatalf("cut to %d bytes from %d", len(got), len(out))
		}
		if utf8.ValidString(out) && !utf8.ValidString(got) {
			t.Fatalf("a character was split: %q", got)
		}
		r.Output = got
		again := c.cutOutput(context.Background(), r, cutLevels[len(cutLevels)-1])
		if len(cutNote().FindAllString(again, -1)) < 1 {
			t.Fatalf("the second cut lost the note: %q", again)
		}
	})
}

// Estimate's Added is what the history gained since the request the
// provider measured: the reply, here; the next request's size is that
// report plus it.
func TestEstimateAddedSinceReport(t *testing.T) {
	reply := strings.Repeat("reply words ", 200)
	p := &scripted{steps: []step{{chunks: []llm.Chunk{text(reply), stop(), {Usage: &llm.Usage{InputTokens: 5000}}}}}}
	c := New(p, Config{Retry: fast}, nil)
	drain(t, c, userText("a short prompt"))
	e := c.Estimate()
	if e.LastPrompt != 5000 {
		t.Fatalf("LastPrompt %d, want 5000", e.LastPrompt)
	}
	if want := estimateMessage(&c.History()[1]); e.Added != want {
		t.Fatalf("Added %d, want the reply's estimate %d", e.Added, want)
	}
}
