package sdk

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/inbox"
)

// lineWriter collects the SDK's output lines for a test that reads them
// while the SDK writes.
type lineWriter struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// waitFor returns the output once it holds n messages of type typ.
func (w *lineWriter) waitFor(t *testing.T, typ string, n int) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		out := w.buf.String()
		w.mu.Unlock()
		if strings.Count(out, `"type":"`+typ+`"`) >= n {
			return out
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %d %s messages in time", n, typ)
	return ""
}

func sdkUser(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	return string(b) + "\n"
}

// kindsOf lists the messages as type/subtype.
func kindsOf(t *testing.T, out string) string {
	var ks []string
	for _, l := range lines(t, out) {
		ks = append(ks, l.Type+"/"+l.Subtype)
	}
	return strings.Join(ks, " ")
}

// A query whose model stops while background work it started still runs
// waits for that work: the notification is announced and sent before the
// query's result, and the result counts only the user's turn.
func TestSDKNotificationBeforeTheResult(t *testing.T) {
	in := inbox.New()
	release := in.Hold()
	go func() {
		time.Sleep(50 * time.Millisecond)
		in.Post(inbox.Round{Type: client.Notification, Source: "agent agent-1", Text: "<task-notification>42</task-notification>"})
		release()
	}()
	s := &scripted{replies: []string{"started it", "it finished: 42"}}
	var out lineWriter
	sdk := New(headless.Config{Format: headless.FormatStreamJSON, Stdout: &out, Stderr: io.Discard, SessionID: "s", Inbox: in})
	if code := sdk.Serve(context.Background(), s, noTools{}, strings.NewReader(sdkUser("go")), Controls{}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	got := kindsOf(t, out.buf.String())
	if want := "system/init assistant/ system/notification assistant/ result/success"; got != want {
		t.Fatalf("messages %s, want %s", got, want)
	}
	ls := lines(t, out.buf.String())
	if last := ls[len(ls)-1]; last.NumTurns != 1 || last.Result != "it finished: 42" {
		t.Errorf("result %+v", last)
	}
	if len(s.types) != 2 || s.types[1] != client.Notification {
		t.Errorf("rounds %v", s.types)
	}
}

// A round that arrives after the query ended, while the SDK has sent
// nothing new, is sent as a query of its own: announced by a system
// message, answered, and ended with a result of its own.
func TestSDKRoundWhileIdle(t *testing.T) {
	in := inbox.New()
	s := &scripted{replies: []string{"hello", "noted the teammate"}}
	var out lineWriter
	pr, pw := io.Pipe()
	rec := &recorder{}
	sdk := New(headless.Config{Format: headless.FormatStreamJSON, Stdout: &out, Stderr: io.Discard, SessionID: "s", Inbox: in,
		Recorder: rec})
	code := make(chan int, 1)
	go func() { code <- sdk.Serve(context.Background(), s, noTools{}, pr, Controls{}) }()
	if _, err := io.WriteString(pw, sdkUser("hi")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "result", 1)
	done := false
	in.Post(inbox.Round{Type: client.Teammate, Source: "agent agent-2", Text: "a message", Done: func() { done = true }})
	got := out.waitFor(t, "result", 2)
	pw.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
	if want := "system/init assistant/ result/success system/teammate assistant/ result/success"; kindsOf(t, got) != want {
		t.Fatalf("messages %s, want %s", kindsOf(t, got), want)
	}
	ls := lines(t, got)
	if last := ls[len(ls)-1]; last.NumTurns != 0 || last.Result != "noted the teammate" {
		t.Errorf("the idle round's result %+v: it is no user turn", last)
	}
	if len(s.types) != 2 || s.types[1] != client.Teammate || s.sent[1][0].Text != "a message" {
		t.Errorf("rounds %v %+v", s.types, s.sent)
	}
	if recorded := rec.recorded(); len(recorded) != 1 || !done {
		t.Errorf("recorded %+v, done %v", recorded, done)
	}
}

// Before the first query nothing is sent on the inbox's account: the SDK
// speaks first only after its user has.
func TestSDKWaitsForTheFirstQuery(t *testing.T) {
	in := inbox.New()
	in.Post(inbox.Round{Type: client.Notification, Source: "resume", Text: "work was lost"})
	s := &scripted{replies: []string{"ok"}}
	var out lineWriter
	sdk := New(headless.Config{Format: headless.FormatStreamJSON, Stdout: &out, Stderr: io.Discard, SessionID: "s", Inbox: in})
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() { code <- sdk.Serve(context.Background(), s, noTools{}, pr, Controls{}) }()
	time.Sleep(100 * time.Millisecond)
	pw.Close()
	<-code
	if out.buf.Len() != 0 || len(s.types) != 0 {
		t.Fatalf("the SDK spoke first: %s", out.buf.String())
	}
}
