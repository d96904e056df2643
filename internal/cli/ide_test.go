package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/client"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/ide"
	"github.com/plyhq/ply/internal/ide/idetest"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// The editor's context reaches the model on user queries only, once per
// change: never with tool results (a call and its result stay paired),
// never on rounds no user typed, and not at all when nothing changed.
func TestIDEContextOnUserQueriesOnly(t *testing.T) {
	dir := t.TempDir()
	comp, env := idetest.Start(t, dir)
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	comp.SetContext([]map[string]any{idetest.File(a, 2, true, 7, "the selection"), idetest.File(b, 1, false, 0, "")})
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "list_directory", `{"path":"."}`)},
		fp.Turn{fp.Text("listed")},
		fp.Turn{fp.Text("cron answer")},
		fp.Turn{fp.Text("second answer")},
		fp.Turn{fp.Text("third answer")},
	)
	penv := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": filepath.Join(t.TempDir(), "home")}
	c, errb := testCore(t, dir, penv, "-p", "x")
	ic := ide.New(ide.Options{Env: env, ConnectTimeout: 30 * time.Second})
	c.AttachIDE(ic)
	if st := c.SetIDE(context.Background(), true); !st.Connected {
		t.Fatalf("not connected: %+v; stderr %s", st, errb)
	}
	// The context arrives on the listening stream.
	<-comp.Streams
	deadline := time.Now().Add(20 * time.Second)
	for c.IDEStatus().ActiveFile != a {
		if time.Now().After(deadline) {
			t.Fatal("the editor's context never arrived")
		}
		time.Sleep(5 * time.Millisecond)
	}

	round := func(parts []llm.Part, typ client.SendType) {
		t.Helper()
		for ev := range c.Client().SendMessageStream(context.Background(), parts, typ) {
			if e, ok := ev.(turn.Error); ok {
				t.Fatalf("round failed: %v", e.Err)
			}
		}
	}
	round([]llm.Part{{Text: "first question"}}, client.UserQuery)
	round([]llm.Part{{Response: &llm.FunctionResponse{ID: "c1", Name: "list_directory", Output: "a.go b.go"}}}, client.ToolResult)
	comp.SetContext([]map[string]any{idetest.File(a, 3, true, 99, ""), idetest.File(b, 1, false, 0, "")})
	for !strings.Contains(c.IDEStatus().Cursor, "line 99") {
		if time.Now().After(deadline) {
			t.Fatal("the context change never arrived")
		}
		time.Sleep(5 * time.Millisecond)
	}
	round([]llm.Part{{Text: "a schedule fired"}}, client.Cron)
	round([]llm.Part{{Text: "second question"}}, client.UserQuery)
	round([]llm.Part{{Text: "third question"}}, client.UserQuery)

	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	last := func(i int) string {
		m := reqs[i].Messages
		return m[len(m)-1].Text()
	}
	first := last(0)
	for _, want := range []string{"first question", "<system-reminder>", "Active file: " + a, "the selection", "- " + b} {
		if !strings.Contains(first, want) {
			t.Fatalf("the first query lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(last(1), "system-reminder") || strings.Contains(last(2), "editor") {
		t.Fatalf("context sent with a tool result or a cron round:\n%s\n---\n%s", last(1), last(2))
	}
	second := last(3)
	if !strings.Contains(second, "Cursor moved in "+a) || !strings.Contains(second, "Nothing is selected") || strings.Contains(second, "- "+b) {
		t.Fatalf("the second query should carry only the change:\n%s", second)
	}
	if strings.Contains(last(4), "editor") {
		t.Fatalf("nothing changed, yet context was sent:\n%s", last(4))
	}
}

// editorDialog stands for the entry's dialog: it is asked, and answers
// only when the test says, or gives up when withdrawn.
type editorDialog struct {
	asked  chan struct{}
	answer chan scheduler.Decision
}

func (d *editorDialog) Approve(ctx context.Context, _ *scheduler.Call) (scheduler.Decision, error) {
	d.asked <- struct{}{}
	select {
	case a := <-d.answer:
		return a, nil
	case <-ctx.Done():
		return scheduler.Decision{}, ctx.Err()
	}
}

// A write the model asks for opens in the editor's diff view; accepting
// there with the user's own text runs the call with that text, through
// the scheduler's checks; rejecting there denies it, the file untouched.
func TestIDEDiffDrivesApproval(t *testing.T) {
	dir := t.TempDir()
	comp, env := idetest.Start(t, dir)
	penv := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1", "PLY_HOME": filepath.Join(t.TempDir(), "home")}
	// As the SDK runs it: someone can approve, so writes are offered.
	c, _ := testCore(t, dir, penv, "--input-format", "stream-json", "--output-format", "stream-json")
	c.AttachIDE(ide.New(ide.Options{Env: env, ConnectTimeout: 30 * time.Second}))
	if st := c.SetIDE(context.Background(), true); !st.Connected || !st.Diffing {
		t.Fatalf("not connected with diffs: %+v", st)
	}
	dlg := &editorDialog{asked: make(chan struct{}, 1), answer: make(chan scheduler.Decision, 1)}
	sched := scheduler.New(c.Registry(), append(c.SchedulerOptions(), scheduler.WithApprover(c.Approver(dlg)))...)
	path := filepath.Join(dir, "notes.txt")
	args := `{"file_path":` + strconv.Quote(path) + `,"content":"the model's text\n"}`

	done := make(chan []*scheduler.Call, 1)
	go func() {
		calls, _ := sched.Run(context.Background(), []scheduler.Request{{CallID: "w1", Name: "write_file", Args: args}})
		done <- calls
	}()
	var d idetest.Diff
	select {
	case d = <-comp.Diffs:
	case calls := <-done:
		t.Fatalf("the call was not put to the editor: %s %s", calls[0].State(), calls[0].Response().Output)
	}
	within(t, dlg.asked)
	if d.Path != path || d.NewContent != "the model's text\n" {
		t.Fatalf("openDiff %+v", d)
	}
	comp.Accept(path, "the user's text\n")
	calls := within(t, done)
	if st := calls[0].State(); st != scheduler.StateSuccess {
		t.Fatalf("accepted call ended %s", st)
	}
	if got, _ := os.ReadFile(path); string(got) != "the user's text\n" {
		t.Fatalf("the file holds %q, want the text accepted in the editor", got)
	}

	go func() {
		calls, _ := sched.Run(context.Background(), []scheduler.Request{{CallID: "w2", Name: "write_file", Args: args}})
		done <- calls
	}()
	within(t, comp.Diffs)
	within(t, dlg.asked)
	comp.Reject(path)
	calls = within(t, done)
	if st := calls[0].State(); st != scheduler.StateCancelled {
		t.Fatalf("rejected call ended %s", st)
	}
	if got, _ := os.ReadFile(path); string(got) != "the user's text\n" {
		t.Fatalf("a rejected write changed the file: %q", got)
	}
}

// within receives from ch, failing the test after a deadline that only
// bounds a failure.
func within[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("timed out waiting")
		panic("unreachable")
	}
}
