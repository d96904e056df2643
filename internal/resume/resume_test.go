package resume

import (
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/repair"
)

func call(id string) llm.Part {
	return llm.Part{Call: &llm.FunctionCall{ID: id, Name: "read_file", Args: `{}`}}
}

func resp(id string) llm.Part {
	return llm.Part{Response: &llm.FunctionResponse{ID: id, Name: "read_file", Output: "ok"}}
}

func text(s string) llm.Part { return llm.Part{Text: s} }

func user(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleUser, Parts: parts} }

func model(fr llm.FinishReason, parts ...llm.Part) llm.Message {
	return llm.Message{Role: llm.RoleModel, Parts: parts, FinishReason: fr}
}

const reminder = "<system-reminder>Today is Monday.</system-reminder>"

func TestClassify(t *testing.T) {
	tests := []struct {
		name     string
		history  []llm.Message
		kind     Kind
		start    int
		dangling []string
		cut      bool
		resend   []llm.Part
	}{
		{name: "empty", kind: None},
		{
			name:    "clean text end",
			history: []llm.Message{user(text("hi")), model(llm.FinishStop, text("hello"))},
			kind:    None, start: 2,
		},
		{
			name:    "max tokens is not an interruption",
			history: []llm.Message{user(text("hi")), model(llm.FinishMaxTokens, text("hel"))},
			kind:    None, start: 2,
		},
		{
			name:    "only system reminders after a clean end",
			history: []llm.Message{user(text("hi")), model(llm.FinishStop, text("hello")), user(text(reminder))},
			kind:    None, start: 2,
		},
		{
			name:    "a prompt nobody answered",
			history: []llm.Message{user(text("hi"))},
			kind:    InterruptedPrompt, start: 0,
			resend: []llm.Part{text("hi")},
		},
		{
			name: "several trailing user entries",
			history: []llm.Message{user(text("a")), model(llm.FinishStop, text("b")),
				user(text(reminder)), user(text("fix it"))},
			kind: InterruptedPrompt, start: 2,
			resend: []llm.Part{text(reminder), text("fix it")},
		},
		{
			name:    "media is content",
			history: []llm.Message{user(llm.Part{Media: &llm.Media{MIMEType: "image/png"}})},
			kind:    InterruptedPrompt, start: 0,
			resend: []llm.Part{{Media: &llm.Media{MIMEType: "image/png"}}},
		},
		{
			name: "prompt typed after a call that was never answered",
			history: []llm.Message{user(text("a")), model(llm.FinishToolCalls, call("c1"), call("c2")),
				user(resp("c1"), text("stop"))},
			kind: InterruptedPrompt, start: 2, dangling: []string{"c2"},
			resend: []llm.Part{resp("c1"), repair.InterruptedResponse(llm.FunctionCall{ID: "c2", Name: "read_file"}), text("stop")},
		},
		{
			name:    "dangling calls at the end",
			history: []llm.Message{user(text("a")), model(llm.FinishToolCalls, text("let me look"), call("c1"), call("c2"))},
			kind:    InterruptedTurn, start: 2, dangling: []string{"c1", "c2"},
			resend: []llm.Part{
				repair.InterruptedResponse(llm.FunctionCall{ID: "c1", Name: "read_file"}),
				repair.InterruptedResponse(llm.FunctionCall{ID: "c2", Name: "read_file"}),
			},
		},
		{
			name: "some results saved, some not",
			history: []llm.Message{user(text("a")), model(llm.FinishToolCalls, call("c1"), call("c2")),
				user(resp("c1"))},
			kind: InterruptedTurn, start: 2, dangling: []string{"c2"},
			resend: []llm.Part{resp("c1"), repair.InterruptedResponse(llm.FunctionCall{ID: "c2", Name: "read_file"})},
		},
		{
			name: "all results saved, the reply never came",
			history: []llm.Message{user(text("a")), model(llm.FinishToolCalls, call("c1")),
				user(resp("c1"), text(reminder))},
			kind: InterruptedTurn, start: 2,
			resend: []llm.Part{resp("c1"), text(reminder)},
		},
		{
			name:    "calls in a cut stream",
			history: []llm.Message{user(text("a")), model(llm.FinishUnspecified, call("c1"))},
			kind:    InterruptedTurn, start: 2, dangling: []string{"c1"}, cut: true,
			resend: []llm.Part{repair.InterruptedResponse(llm.FunctionCall{ID: "c1", Name: "read_file"})},
		},
		{
			name:    "reply cut mid-stream",
			history: []llm.Message{user(text("a")), model(llm.FinishUnspecified, text("The answer is"))},
			kind:    InterruptedReply, start: 2, cut: true,
		},
		{
			name:    "reply cut, then only reminders",
			history: []llm.Message{user(text("a")), model(llm.FinishUnspecified, text("The")), user(text(reminder))},
			kind:    InterruptedReply, start: 2, cut: true,
		},
		{
			name:    "repeated call id is dangling once",
			history: []llm.Message{model(llm.FinishToolCalls, call("c1"), call("c1"))},
			kind:    InterruptedTurn, start: 1, dangling: []string{"c1"},
			resend: []llm.Part{repair.InterruptedResponse(llm.FunctionCall{ID: "c1", Name: "read_file"})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Classify(tt.history)
			if in.Kind != tt.kind {
				t.Errorf("kind %v, want %v", in.Kind, tt.kind)
			}
			if in.Start != tt.start {
				t.Errorf("start %d, want %d", in.Start, tt.start)
			}
			var ids []string
			for _, c := range in.Dangling {
				ids = append(ids, c.ID)
			}
			if !reflect.DeepEqual(ids, tt.dangling) {
				t.Errorf("dangling %v, want %v", ids, tt.dangling)
			}
			if in.Cut != tt.cut {
				t.Errorf("cut %v, want %v", in.Cut, tt.cut)
			}
			if got := in.Resend(); !reflect.DeepEqual(got, tt.resend) {
				t.Errorf("resend %+v, want %+v", got, tt.resend)
			}
		})
	}
}

// TestResumeRecipe walks the load path: repair with SkipTrailing, classify,
// truncate to Start, push Resend, repair as the chat layer does. The result
// must be well formed and must not repeat the user's message.
func TestResumeRecipe(t *testing.T) {
	for _, h := range [][]llm.Message{
		{user(text("a")), model(llm.FinishToolCalls, call("c1"), call("c2")), user(resp("c1"))},
		{user(text("a")), model(llm.FinishToolCalls, call("c1")), user(text("never mind"), resp("c1"), resp("c1"))},
		{user(text("a")), model(llm.FinishToolCalls, call("c1")), model(llm.FinishToolCalls, call("c2"))},
		{user(text("a"))},
	} {
		loaded, _ := repair.RepairWith(h, repair.Options{SkipTrailing: true})
		in := Classify(loaded)
		if in.Kind != InterruptedPrompt && in.Kind != InterruptedTurn {
			t.Fatalf("kind %v for %+v", in.Kind, h)
		}
		next := append(append([]llm.Message(nil), loaded[:in.Start]...), user(in.Resend()...))
		fixed, rep := repair.Repair(next)
		if rep.Changed() {
			t.Errorf("resumed history needed repair (%v): resend was not complete", rep)
		}
		seen := map[string]int{}
		for _, e := range fixed {
			for _, p := range e.Parts {
				if p.Text != "" {
					seen[p.Text]++
				}
			}
		}
		for s, n := range seen {
			if n != 1 {
				t.Errorf("text %q appears %d times", s, n)
			}
		}
		if got := Classify(append(fixed, model(llm.FinishStop, text("done")))); got.Kind != None {
			t.Errorf("after the reply the tail is %v", got.Kind)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, s := range map[Kind]string{None: "none", InterruptedPrompt: "interrupted_prompt",
		InterruptedTurn: "interrupted_turn", InterruptedReply: "interrupted_reply"} {
		if k.String() != s {
			t.Errorf("%d.String() = %q, want %q", k, k.String(), s)
		}
	}
}
