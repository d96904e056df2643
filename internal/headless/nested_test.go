package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// subagentTools runs every call as a subagent that answers "sub done".
type subagentTools struct{ cfg Config }

func (s subagentTools) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
	res := Nested(ctx, s.cfg, &scripted{replies: []string{"sub done"}}, noTools{}, []llm.Part{{Text: "sub"}}, calls[0].CallID)
	return []Outcome{{Response: llm.FunctionResponse{ID: calls[0].CallID, Name: calls[0].Name, Output: res.Result}}}, nil
}

// A subagent prints through its parent's sink: in stream-json its
// messages are marked with the parent call and neither an init nor a
// result of its own is printed; in text its progress lines are indented
// under the parent's and its answer is not the parent's.
func TestNestedWritesThroughTheParent(t *testing.T) {
	var out bytes.Buffer
	s := &callsOnce{scripted{replies: []string{"", "parent done"}}}
	// The subagent's own Config names another format: the parent's wins.
	code := Run(context.Background(), Config{Format: FormatStreamJSON, Stdout: &out, SessionID: "s"}, s,
		subagentTools{Config{Format: FormatText}}, []llm.Part{{Text: "go"}})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			Type     string  `json:"type"`
			Subtype  string  `json:"subtype"`
			ParentID *string `json:"parent_tool_use_id"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		k := m.Type + "/" + m.Subtype
		if m.ParentID != nil {
			k += "@" + *m.ParentID
		}
		kinds = append(kinds, k)
	}
	if got, want := strings.Join(kinds, " "), "system/init assistant/ assistant/@c1 user/ assistant/ result/success"; got != want {
		t.Fatalf("messages %s, want %s", got, want)
	}

	out.Reset()
	var stderr bytes.Buffer
	s = &callsOnce{scripted{replies: []string{"", "parent done"}}}
	tools := runnerFunc(func(ctx context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
		callsSub := &callsOnce{scripted{replies: []string{"", "sub done"}}}
		res := Nested(ctx, Config{}, callsSub, postingNothing{}, []llm.Part{{Text: "sub"}}, calls[0].CallID)
		return []Outcome{{Response: llm.FunctionResponse{ID: calls[0].CallID, Name: calls[0].Name, Output: res.Result}}}, nil
	})
	if code := Run(context.Background(), Config{Format: FormatText, Stdout: &out, Stderr: &stderr}, s, tools, []llm.Part{{Text: "go"}}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if out.String() != "parent done\n" {
		t.Errorf("stdout %q", out.String())
	}
	if want := "→ read_file {}\n  ↳ → read_file {}\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

type postingNothing struct{}

func (postingNothing) RunTools(_ context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
	return []Outcome{{Response: llm.FunctionResponse{ID: calls[0].CallID, Name: calls[0].Name, Output: "ok"}}}, nil
}

// Without a parent run (the TUI), a text subagent's progress goes to its
// own stderr, not indented, and nothing else is printed.
func TestNestedWithoutAParent(t *testing.T) {
	var stdout, stderr bytes.Buffer
	s := &callsOnce{scripted{replies: []string{"", "sub done"}}}
	res := Nested(context.Background(), Config{Format: FormatText, Stdout: &stdout, Stderr: &stderr}, s, postingNothing{}, []llm.Part{{Text: "sub"}}, "c9")
	if res.Result != "sub done" || res.IsError {
		t.Fatalf("result %+v", res)
	}
	if stdout.Len() != 0 || stderr.String() != "→ read_file {}\n" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
