package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// launcher runs nothing in the foreground and records the tasks it starts.
type launcher struct {
	started []Task
	err     error
}

func (l *launcher) Run(context.Context, Task) Report { return Report{Text: "foreground"} }
func (l *launcher) Launch(_ context.Context, t Task) (string, error) {
	if l.err != nil {
		return "", l.err
	}
	l.started = append(l.started, t)
	return "bg-1", nil
}

func TestRunInBackgroundReturnsTheTaskID(t *testing.T) {
	l := &launcher{}
	tool := NewTool(Builtin(), l)
	if !strings.Contains(string(tool.Schema()), `"run_in_background"`) {
		t.Fatalf("a runner that launches offers run_in_background: %s", tool.Schema())
	}
	ctx := tools.WithCallID(context.Background(), "call-7")
	res, err := tool.Execute(ctx, json.RawMessage(`{"description":"scan","prompt":"look","run_in_background":true}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if len(l.started) != 1 || l.started[0].Prompt != "look" || l.started[0].CallID != "call-7" || l.started[0].Def.Name != GeneralPurpose {
		t.Fatalf("started %+v", l.started)
	}
	if !strings.Contains(res.Output, "bg-1") || !strings.Contains(res.Output, SendMessageName) {
		t.Errorf("the result names the task and how to message it: %q", res.Output)
	}
	// Without the flag the call blocks as before.
	res, _ = tool.Execute(ctx, json.RawMessage(`{"description":"scan","prompt":"look"}`), nil)
	if res.Output != "foreground" || len(l.started) != 1 {
		t.Errorf("foreground run: %+v", res)
	}
	l.err = errors.New("too many background tasks")
	res, _ = tool.Execute(ctx, json.RawMessage(`{"description":"scan","prompt":"look","run_in_background":true}`), nil)
	if !res.IsError || !strings.Contains(res.Output, "too many") {
		t.Errorf("a refused launch is the call's error: %+v", res)
	}
}

func TestNoBackgroundWithoutALauncher(t *testing.T) {
	tool := NewTool(Builtin(), &sleepy{})
	if strings.Contains(string(tool.Schema()), "run_in_background") {
		t.Fatal("offered run_in_background with nothing to run it")
	}
	res, _ := tool.Execute(context.Background(), json.RawMessage(`{"description":"a","prompt":"b","run_in_background":true}`), nil)
	if !res.IsError {
		t.Fatalf("%+v", res)
	}
}

type mailbox struct{ to, text string }

func (m *mailbox) SendMessage(_ context.Context, to, text string) (string, error) {
	if to == "nobody" {
		return "", errors.New("no running task nobody")
	}
	m.to, m.text = to, text
	return "queued for " + to, nil
}

func TestSendMessage(t *testing.T) {
	m := &mailbox{}
	tool := NewSendMessage(m, "")
	if tool.Name() != SendMessageName || tool.Kind() != tools.KindThink {
		t.Fatal(tool.Name(), tool.Kind())
	}
	res, _ := tool.Execute(context.Background(), json.RawMessage(`{"task_id":"bg-1","message":"also check b.go"}`), nil)
	if res.IsError || m.to != "bg-1" || m.text != "also check b.go" || res.Output != "queued for bg-1" {
		t.Fatalf("%+v %+v", res, m)
	}
	for _, args := range []string{`{"task_id":"bg-1","message":"  "}`, `{"message":"hi"}`, `{"task_id":"nobody","message":"hi"}`, `[1]`} {
		if res, _ := tool.Execute(context.Background(), json.RawMessage(args), nil); !res.IsError {
			t.Errorf("%s: accepted", args)
		}
	}
	// A subagent's copy writes to its parent whatever it names.
	up := NewSendMessage(m, "parent")
	if res, _ := up.Execute(context.Background(), json.RawMessage(`{"message":"found it"}`), nil); res.IsError || m.to != "parent" {
		t.Fatalf("%+v %+v", res, m)
	}
	if strings.Contains(string(up.Schema()), "task_id") {
		t.Error("a subagent's send_message has no recipient to choose")
	}
}
