package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// scripted answers each round with the next reply text, after calling
// during (if set) while the round streams; it records what was sent.
type scripted struct {
	mu      sync.Mutex
	replies []string
	during  func(n int)
	types   []client.SendType
	sent    [][]llm.Part
}

func (s *scripted) SendMessageStream(_ context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	s.mu.Lock()
	n := len(s.types)
	s.types = append(s.types, typ)
	s.sent = append(s.sent, parts)
	s.mu.Unlock()
	return func(yield func(turn.Event) bool) {
		if s.during != nil {
			s.during(n)
		}
		text := "?"
		if n < len(s.replies) {
			text = s.replies[n]
		}
		if !yield(turn.Content{Text: text}) {
			return
		}
		yield(turn.Finished{Reason: llm.FinishStop, Text: text})
	}
}

type noTools struct{}

func (noTools) RunTools(context.Context, []*turn.ToolCallRequest) ([]Outcome, error) { return nil, nil }

type line struct {
	Type     string `json:"type"`
	Subtype  string `json:"subtype"`
	Source   string `json:"source"`
	NumTurns int    `json:"num_turns"`
	Result   string `json:"result"`
}

func lines(t *testing.T, out string) []line {
	var ls []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m line
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		ls = append(ls, m)
	}
	return ls
}

// A background task finishing while the run is idle (its prompt answered)
// keeps the run going: the notification is a round of its own, announced
// by a system message naming its source, not counted in num_turns.
func TestNotificationWhileIdle(t *testing.T) {
	in := inbox.New()
	release := in.Hold()
	s := &scripted{replies: []string{"started it", "it finished: 42"}}
	rec := &recorder{}
	var out bytes.Buffer
	go func() {
		time.Sleep(50 * time.Millisecond)
		in.Post(inbox.Round{Type: client.Notification, Source: "agent bg-1", Text: "<result>42</result>"})
		release()
	}()
	code := Run(context.Background(), Config{Format: FormatStreamJSON, Stdout: &out, Inbox: in,
		Recorder: rec}, s, noTools{}, []llm.Part{{Text: "go"}})
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	if len(s.types) != 2 || s.types[1] != client.Notification || s.sent[1][0].Text != "<result>42</result>" {
		t.Fatalf("rounds %v %+v, want a user query then the notification", s.types, s.sent)
	}
	ls := lines(t, out.String())
	var kinds []string
	for _, l := range ls {
		kinds = append(kinds, l.Type+"/"+l.Subtype)
	}
	want := "system/init assistant/ system/notification assistant/ result/success"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("messages %v, want %s", kinds, want)
	}
	if ls[2].Source != "agent bg-1" {
		t.Errorf("the system message names %q", ls[2].Source)
	}
	last := ls[len(ls)-1]
	if last.NumTurns != 1 || last.Result != "it finished: 42" {
		t.Errorf("result %+v: num_turns counts the user's prompt only, result is the last reply", last)
	}
	if recorded := rec.recorded(); len(recorded) != 1 || recorded[0].Type != client.Notification {
		t.Errorf("recorded %+v", recorded)
	}
}

// One that arrives while a round streams waits for that round to end.
func TestNotificationWhileStreaming(t *testing.T) {
	in := inbox.New()
	s := &scripted{replies: []string{"working", "noted"}}
	s.during = func(n int) {
		if n == 0 {
			in.Post(inbox.Round{Type: client.Notification, Source: "agent bg-2", Text: "done"})
		}
	}
	var out bytes.Buffer
	if code := Run(context.Background(), Config{Format: FormatText, Stdout: &out, Inbox: in}, s, noTools{}, []llm.Part{{Text: "go"}}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if len(s.types) != 2 || s.types[1] != client.Notification {
		t.Fatalf("rounds %v", s.types)
	}
	if out.String() != "noted\n" {
		t.Errorf("stdout %q, want the last reply", out.String())
	}
}

// The wait for held work ends with the wall-time cap.
func TestHeldWorkIsBoundedByTheWallTime(t *testing.T) {
	in := inbox.New()
	release := in.Hold()
	defer release()
	s := &scripted{replies: []string{"started"}}
	var out bytes.Buffer
	start := time.Now()
	code := Run(context.Background(), Config{Format: FormatText, Stdout: &out, Stderr: &out, Inbox: in, MaxWallTime: 100 * time.Millisecond}, s, noTools{}, []llm.Part{{Text: "go"}})
	if code != exitcode.Budget || time.Since(start) > 5*time.Second {
		t.Fatalf("exit %d after %v: %s", code, time.Since(start), out.String())
	}
}

// callsOnce asks for one tool call in its first round, then answers text.
type callsOnce struct{ scripted }

func (s *callsOnce) SendMessageStream(ctx context.Context, parts []llm.Part, typ client.SendType) iter.Seq[turn.Event] {
	s.mu.Lock()
	n := len(s.types)
	s.mu.Unlock()
	if n > 0 {
		return s.scripted.SendMessageStream(ctx, parts, typ)
	}
	s.mu.Lock()
	s.types, s.sent = append(s.types, typ), append(s.sent, parts)
	s.mu.Unlock()
	return func(yield func(turn.Event) bool) {
		if yield(&turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: `{}`}) {
			yield(turn.Finished{Reason: llm.FinishToolCalls})
		}
	}
}

type postingTools struct{ in *inbox.Inbox }

func (p postingTools) RunTools(_ context.Context, calls []*turn.ToolCallRequest) ([]Outcome, error) {
	p.in.Post(inbox.Round{Type: client.Teammate, Source: "parent", Text: "also check b.go"})
	p.in.Post(inbox.Round{Type: client.Notification, Source: "agent agent-9", Text: "done"})
	return []Outcome{{Response: llm.FunctionResponse{ID: calls[0].CallID, Name: calls[0].Name, Output: "a.go"}}}, nil
}

// A teammate's message that arrives while tools run goes out with their
// results, after them (the calls stay answered first); a notification
// waits for the interaction to end.
func TestTeammateMessageJoinsTheToolResults(t *testing.T) {
	in := inbox.New()
	s := &callsOnce{scripted{replies: []string{"", "read both", "noted"}}}
	var out bytes.Buffer
	if code := Run(context.Background(), Config{Format: FormatText, Stdout: &out, Inbox: in}, s, postingTools{in}, []llm.Part{{Text: "go"}}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if len(s.types) != 3 || s.types[1] != client.ToolResult || s.types[2] != client.Notification {
		t.Fatalf("rounds %v", s.types)
	}
	p := s.sent[1]
	if len(p) != 2 || p[0].Response == nil || p[1].Response != nil || !strings.Contains(p[1].Text, "also check b.go") {
		t.Fatalf("tool-result round parts %+v", p)
	}
}
