package turn

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/llm"
)

// events is a Sender that replays fixed stream events.
type events []chat.StreamEvent

func (e events) SendMessageStream(ctx context.Context, _ llm.Message) iter.Seq2[chat.StreamEvent, error] {
	return func(yield func(chat.StreamEvent, error) bool) {
		for _, ev := range e {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func chunk(c llm.Chunk) chat.StreamEvent { return chat.StreamEvent{Kind: chat.EventChunk, Chunk: c} }

func collect(t *testing.T, s Sender) (*Turn, []Event) {
	t.Helper()
	tr := New()
	var out []Event
	for ev := range tr.Run(context.Background(), s, llm.Message{}) {
		out = append(out, ev)
	}
	return tr, out
}

func TestRetryClearsPendingCalls(t *testing.T) {
	call := llm.Chunk{Calls: []llm.FunctionCall{{ID: "a", Name: "read_file", Args: `{}`}}}
	tr, evs := collect(t, events{
		chunk(call),
		{Kind: chat.EventRetry, Attempt: 1, Reason: "dropped"},
		chunk(call),
		chunk(llm.Chunk{FinishReason: llm.FinishToolCalls, Usage: &llm.Usage{InputTokens: 3, OutputTokens: 2}}),
	})
	if n := len(tr.Pending()); n != 1 {
		t.Fatalf("pending = %d, want 1: a retried stream's calls must not stack", n)
	}
	last, ok := evs[len(evs)-1].(Finished)
	if !ok || last.Reason != llm.FinishToolCalls || last.Usage.InputTokens != 3 {
		t.Fatalf("last event = %#v", evs[len(evs)-1])
	}
	var kinds []string
	for _, e := range evs {
		switch e.(type) {
		case *ToolCallRequest:
			kinds = append(kinds, "call")
		case Retry:
			kinds = append(kinds, "retry")
		case Finished:
			kinds = append(kinds, "finished")
		}
	}
	if want := "call retry call finished"; strings.Join(kinds, " ") != want {
		t.Fatalf("events %v, want %s", kinds, want)
	}
}

func TestMaxTokensMarksPendingTruncated(t *testing.T) {
	tr, _ := collect(t, events{
		chunk(llm.Chunk{Text: "writing"}),
		chunk(llm.Chunk{Calls: []llm.FunctionCall{{ID: "w", Name: "write_file", Args: `{"file_path":"a","content":"x"}`}}}),
		chunk(llm.Chunk{FinishReason: llm.FinishMaxTokens}),
	})
	if p := tr.Pending(); len(p) != 1 || !p[0].WasOutputTruncated {
		t.Fatalf("pending = %+v, want one truncated call", p)
	}
	tr2, _ := collect(t, events{
		chunk(llm.Chunk{Calls: []llm.FunctionCall{{ID: "w", Name: "write_file", Args: `{}`}}, FinishReason: llm.FinishToolCalls}),
	})
	if tr2.Pending()[0].WasOutputTruncated {
		t.Fatal("a call of a normally finished round is not truncated")
	}
}

func TestMissingCallIDIsGenerated(t *testing.T) {
	tr, _ := collect(t, events{chunk(llm.Chunk{Calls: []llm.FunctionCall{{Name: "glob"}}, FinishReason: llm.FinishToolCalls})})
	id := tr.Pending()[0].CallID
	if len(id) < len("glob-1-") || id[:5] != "glob-" {
		t.Fatalf("generated id %q, want glob-<ms>-<random>", id)
	}
}

type failing struct{ err error }

func (f failing) SendMessageStream(ctx context.Context, _ llm.Message) iter.Seq2[chat.StreamEvent, error] {
	return func(yield func(chat.StreamEvent, error) bool) { yield(chat.StreamEvent{}, f.err) }
}

func TestErrorsAndCancellation(t *testing.T) {
	_, evs := collect(t, failing{errors.New("boom")})
	if len(evs) != 1 {
		t.Fatalf("events = %#v", evs)
	}
	if e, ok := evs[0].(Error); !ok || e.Err.Error() != "boom" {
		t.Fatalf("event = %#v, want Error", evs[0])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var got []Event
	for ev := range New().Run(ctx, failing{context.Canceled}, llm.Message{}) {
		got = append(got, ev)
	}
	if len(got) != 1 {
		t.Fatalf("events = %#v", got)
	}
	if _, ok := got[0].(UserCancelled); !ok {
		t.Fatalf("event = %#v, want UserCancelled", got[0])
	}
}

// replying is a Sender that also gives the reply it recorded.
type replying struct {
	events
	reply llm.Message
}

func (r replying) LastReply() (llm.Message, bool) { return r.reply, true }

func TestFinishedCarriesTheReplyText(t *testing.T) {
	evs := events{
		chunk(llm.Chunk{Text: "dropped"}),
		{Kind: chat.EventRetry, Attempt: 1, Reason: "cut"},
		chunk(llm.Chunk{Text: "hello "}), chunk(llm.Chunk{Text: "world"}),
		chunk(llm.Chunk{FinishReason: llm.FinishStop}),
	}
	_, out := collect(t, evs)
	if f := out[len(out)-1].(Finished); f.Text != "hello world" {
		t.Fatalf("spelled out: %q", f.Text)
	}
	recorded := llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "as recorded"}}}
	_, out = collect(t, replying{evs, recorded})
	if f := out[len(out)-1].(Finished); f.Text != "as recorded" {
		t.Fatalf("from the sender's record: %q", f.Text)
	}
}
