package ide_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/ide"
	"github.com/plyhq/ply/internal/ide/idetest"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// setup starts a companion whose discovery file names a workspace, and a
// client whose process sits in the editor's terminal there.
func setup(t *testing.T) (*idetest.Companion, *ide.Client, string) {
	t.Helper()
	ws := t.TempDir()
	comp, env := idetest.Start(t, ws)
	c := ide.New(ide.Options{Env: env, ClientVersion: "test", ConnectTimeout: 30 * time.Second})
	t.Cleanup(c.Disconnect)
	return comp, c, ws
}

func connect(t *testing.T, comp *idetest.Companion, c *ide.Client) {
	t.Helper()
	st, notices := c.Connect(context.Background())
	if st.State != ide.Connected || !st.Diffing {
		t.Fatalf("Connect = %+v (notices %q)", st, notices)
	}
	waitFor(t, "the listening stream", func() bool {
		select {
		case <-comp.Streams:
			return true
		default:
			return false
		}
	})
}

// waitFor polls cond with a generous deadline that only bounds a failure.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var file = idetest.File

func TestContextDeltasOnly(t *testing.T) {
	comp, c, ws := setup(t)
	a, b := filepath.Join(ws, "a.go"), filepath.Join(ws, "b.go")
	comp.SetContext([]map[string]any{file(a, 2, true, 10, "func main()"), file(b, 1, false, 0, "")})
	connect(t, comp, c)

	var first string
	waitFor(t, "the first context", func() bool { first = c.TakeContext(); return first != "" })
	for _, want := range []string{"<system-reminder>", "Active file: " + a + " (cursor at line 10, character 3)", "func main()", "- " + b, "not something the user typed"} {
		if !strings.Contains(first, want) {
			t.Fatalf("first context lacks %q:\n%s", want, first)
		}
	}
	if again := c.TakeContext(); again != "" {
		t.Fatalf("nothing changed, yet the context is sent again:\n%s", again)
	}
	// The cursor moves and the selection goes: only that is said.
	comp.SetContext([]map[string]any{file(a, 3, true, 42, ""), file(b, 1, false, 0, "")})
	var d string
	waitFor(t, "the change", func() bool { d = c.TakeContext(); return d != "" })
	if !strings.Contains(d, "Cursor moved in "+a+": now at line 42, character 3") || !strings.Contains(d, "Nothing is selected") || strings.Contains(d, "- "+b) {
		t.Fatalf("delta:\n%s", d)
	}
	// Another file gets the focus, one closes.
	comp.SetContext([]map[string]any{file(b, 4, true, 1, "x := 1"), file(a, 3, false, 0, "")})
	waitFor(t, "the focus change", func() bool { d = c.TakeContext(); return d != "" })
	if !strings.Contains(d, "Active file is now: "+b) || !strings.Contains(d, "x := 1") || strings.Contains(d, "Files opened") {
		t.Fatalf("delta:\n%s", d)
	}
}

func TestContextIsClearedOnDisconnect(t *testing.T) {
	comp, c, ws := setup(t)
	comp.SetContext([]map[string]any{file(filepath.Join(ws, "a.go"), 1, true, 1, "")})
	connect(t, comp, c)
	waitFor(t, "the context", func() bool { return c.TakeContext() != "" })
	c.Disconnect()
	if st := c.Status(); st.State != ide.Disconnected {
		t.Fatalf("status after Disconnect: %+v", st)
	}
	if s := c.TakeContext(); s != "" {
		t.Fatalf("context after Disconnect: %q", s)
	}
}

func TestConnectionLostIsSaid(t *testing.T) {
	comp, c, _ := setup(t)
	connect(t, comp, c)
	comp.Stop()
	waitFor(t, "the lost connection", func() bool { return c.Status().State == ide.Disconnected })
	if st := c.Status(); !strings.Contains(st.Detail, "lost") {
		t.Fatalf("status: %+v", st)
	}
}

func TestWrongTokenIsRefusedAndNotShown(t *testing.T) {
	comp, c, _ := setup(t)
	inFile := comp.Token
	comp.SetToken("changed-after-the-file-was-written")
	st, _ := c.Connect(context.Background())
	if st.State == ide.Connected {
		t.Fatal("connected with a token the server refuses")
	}
	if comp.Refused() == 0 {
		t.Fatal("the server refused nothing")
	}
	if strings.Contains(st.Detail, inFile) {
		t.Fatalf("the status shows the token: %s", st.Detail)
	}
}

// dialog is an approver that answers when told to, or gives up with ctx.
type dialog struct {
	asked   chan struct{}
	answer  chan scheduler.Decision
	cancels chan struct{}
}

func newDialog() *dialog {
	return &dialog{asked: make(chan struct{}, 1), answer: make(chan scheduler.Decision, 1), cancels: make(chan struct{}, 1)}
}

func (d *dialog) Approve(ctx context.Context, _ *scheduler.Call) (scheduler.Decision, error) {
	d.asked <- struct{}{}
	select {
	case a := <-d.answer:
		return a, nil
	case <-ctx.Done():
		d.cancels <- struct{}{}
		return scheduler.Decision{}, ctx.Err()
	}
}

func writeCall(t *testing.T, ws, path, content string) *scheduler.Call {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
	w, err := tools.NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	return &scheduler.Call{Request: scheduler.Request{CallID: "c1", Name: "write_file"}, Tool: tools.NewWriteFile(w), Params: args}
}

func TestDiffAcceptedInTheEditorApprovesWithTheUsersText(t *testing.T) {
	comp, c, ws := setup(t)
	connect(t, comp, c)
	path := filepath.Join(ws, "new.txt")
	dlg := newDialog()
	type result struct {
		d   scheduler.Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := c.Approver(dlg).Approve(context.Background(), writeCall(t, ws, path, "model's text\n"))
		done <- result{d, err}
	}()
	diff := <-comp.Diffs
	<-dlg.asked
	if diff.Path != path || diff.NewContent != "model's text\n" {
		t.Fatalf("openDiff got %+v", diff)
	}
	comp.Accept(path, "the user's text\n")
	r := <-done
	if r.err != nil || r.d.Outcome != scheduler.OutcomeAllowOnce {
		t.Fatalf("decision %+v, %v", r.d, r.err)
	}
	var args map[string]string
	_ = json.Unmarshal([]byte(r.d.UpdatedInput), &args)
	if args["content"] != "the user's text\n" || args["file_path"] != path {
		t.Fatalf("the user's edits are lost: UpdatedInput %s", r.d.UpdatedInput)
	}
	select {
	case <-dlg.cancels:
	default:
		t.Fatal("the dialog was not withdrawn when the editor answered")
	}
}

func TestDiffRejectedInTheEditorDenies(t *testing.T) {
	comp, c, ws := setup(t)
	connect(t, comp, c)
	path := filepath.Join(ws, "new.txt")
	dlg := newDialog()
	done := make(chan scheduler.Decision, 1)
	go func() {
		d, _ := c.Approver(dlg).Approve(context.Background(), writeCall(t, ws, path, "x\n"))
		done <- d
	}()
	<-comp.Diffs
	<-dlg.asked
	comp.Reject(path)
	if d := <-done; d.Outcome != scheduler.OutcomeDeny || !strings.Contains(d.Reason, "editor") {
		t.Fatalf("decision %+v", d)
	}
}

func TestDialogAnswerFirstClosesTheDiff(t *testing.T) {
	comp, c, ws := setup(t)
	connect(t, comp, c)
	path := filepath.Join(ws, "new.txt")
	dlg := newDialog()
	done := make(chan scheduler.Decision, 1)
	go func() {
		d, _ := c.Approver(dlg).Approve(context.Background(), writeCall(t, ws, path, "x\n"))
		done <- d
	}()
	<-comp.Diffs
	<-dlg.asked
	dlg.answer <- scheduler.Decision{Outcome: scheduler.OutcomeAllowAlways}
	if d := <-done; d.Outcome != scheduler.OutcomeAllowAlways || d.UpdatedInput != "" {
		t.Fatalf("decision %+v", d)
	}
	if got := <-comp.Closed; got != path {
		t.Fatalf("closeDiff for %q, want %q", got, path)
	}
	// A late answer from the editor changes nothing and blocks nothing.
	comp.Accept(path, "late")
}

func TestNoDiffWhenDisconnectedOrNotAFileWrite(t *testing.T) {
	_, c, ws := setup(t)
	dlg := newDialog()
	dlg.answer <- scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce}
	d, err := c.Approver(dlg).Approve(context.Background(), writeCall(t, ws, filepath.Join(ws, "x"), "x"))
	if err != nil || d.Outcome != scheduler.OutcomeAllowOnce {
		t.Fatalf("disconnected: %+v %v", d, err)
	}
	if a := (*ide.Client)(nil).Approver(nil); a != nil {
		t.Fatal("a nil approver must stay nil: no one can be asked")
	}
}
