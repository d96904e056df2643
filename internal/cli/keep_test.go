package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/session"
)

// runPlyCancel is runPlyIn whose context is cancelled (what SIGINT does)
// once ready reports true.
func runPlyCancel(t *testing.T, dir, home string, srv *fp.Server, ready func() bool, args ...string) result {
	t.Helper()
	env := map[string]string{
		"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "PLY_HOME": home,
		"PLY_RETRY_DELAY_SCALE": "0.001", "OPENAI_BASE_URL": srv.URL,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for !ready() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	var out, errb bytes.Buffer
	sio := IO{Stdin: strings.NewReader(""), StdinIsTTY: true, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir}
	code := Main(ctx, args, sio)
	return result{out.String(), errb.String(), code}
}

// toolText returns the text of the tool message answering id in the last
// request srv received.
func toolText(t *testing.T, srv *fp.Server, id string) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.Text()
		}
	}
	t.Fatalf("the last request carries no result for %s", id)
	return ""
}

// A write that finished in a batch cut short by Ctrl+C keeps its real
// result: --continue sends it, not "interrupted, no result".
func TestCancelledBatchKeepsFinishedResults(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{
		fp.ToolCall("w1", "write_file", `{"file_path":"out.txt","content":"hello\n"}`),
		fp.ToolCall("s1", "run_shell_command", `{"command":"touch started; sleep 20"}`),
	})
	r := runPlyCancel(t, dir, home, srv, func() bool {
		_, err1 := os.Stat(filepath.Join(dir, "out.txt"))
		_, err2 := os.Stat(filepath.Join(dir, "started"))
		return err1 == nil && err2 == nil
	}, "-y", "-p", "write and wait")
	if r.code != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", r.code, r.stderr)
	}
	srv.Append(fp.Turn{fp.Text("ok.")})
	r = runPlyHome(t, dir, home, srv, "-y", "--continue")
	if r.code != 0 {
		t.Fatalf("--continue: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if got := toolText(t, srv, "w1"); !strings.Contains(got, "Successfully created") {
		t.Errorf("the write's result sent on --continue is %q, want its real success text", got)
	}
	if got := toolText(t, srv, "s1"); !strings.Contains(strings.ToLower(got), "cancel") {
		t.Errorf("the unfinished command's result is %q, want one saying it was cancelled", got)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// A call lost with the process (a crash, kill -9) is answered on resume
// with a response that says so, not as if it had been cancelled.
func TestResumeSaysACallWasLostToACrash(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	w, err := session.Create(home, dir, "0b9e8f3c-4a51-4c59-9d1c-6f6d9f0d7a11", "test-model")
	if err != nil {
		t.Fatal(err)
	}
	w.Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "go"}}})
	w.Append(llm.Message{Role: llm.RoleModel, FinishReason: llm.FinishToolCalls,
		Parts: []llm.Part{{Call: &llm.FunctionCall{ID: "s1", Name: "run_shell_command", Args: `{"command":"true"}`}}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t, fp.Turn{fp.Text("ok.")})
	r := runPlyHome(t, dir, home, srv, "-y", "--continue")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if got := toolText(t, srv, "s1"); !strings.Contains(got, "killed or crashed") {
		t.Errorf("the lost call's response is %q, want one saying ply was killed or crashed", got)
	}
}

// In SDK mode an interrupt during a batch keeps the finished write's real
// result for the next query's request.
func TestSDKInterruptKeepsFinishedResults(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{
			fp.ToolCall("w1", "write_file", `{"file_path":"out.txt","content":"hello\n"}`),
			fp.ToolCall("s1", "run_shell_command", `{"command":"touch started; sleep 20"}`),
		},
		fp.Turn{fp.Text("next answer")},
	)
	p, code := startSDK(t, dir, srv, "-y")
	p.send(userMsg("write, then wait"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err1 := os.Stat(filepath.Join(dir, "out.txt"))
		_, err2 := os.Stat(filepath.Join(dir, "started"))
		if err1 == nil && err2 == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.send(map[string]any{"type": "control_request", "request_id": "int-1", "request": map[string]any{"subtype": "interrupt"}})
	if res := p.next("result", nil); res["is_error"] != true {
		t.Fatalf("interrupted result %v", res)
	}
	p.send(userMsg("what happened?"))
	if res := p.next("result", nil); res["result"] != "next answer" {
		t.Fatalf("second result %v", res)
	}
	if got := toolText(t, srv, "w1"); !strings.Contains(got, "Successfully created") {
		t.Errorf("the write's result in the next query is %q, want its real success text", got)
	}
	if got := toolText(t, srv, "s1"); !strings.Contains(strings.ToLower(got), "cancel") {
		t.Errorf("the interrupted command's result is %q", got)
	}
	p.in.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
}
