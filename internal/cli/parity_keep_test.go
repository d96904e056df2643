package cli

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
)

// ---- keep_results_after_interrupt ----

// keepScript is one batch: a write that finishes, then a command that says
// it started through the fifo started.fifo and blocks on hold.fifo, which
// no one opens, until it is stopped; then the answer to the next prompt.
func keepScript() []fp.Turn {
	return []fp.Turn{
		{
			fp.ToolCall("w1", "write_file", `{"file_path":"out.txt","content":"hello\n"}`),
			fp.ToolCall("s1", "run_shell_command", `{"command":"echo started > started.fifo; cat hold.fifo"}`),
		},
		{fp.Text("next answer")},
	}
}

// batchStarted makes the fifos of keepScript in dir and returns a channel
// closed once the command wrote to started.fifo: the write, before it in
// its batch, has finished by then (a batch that may write runs its calls
// one at a time, in order).
func batchStarted(t *testing.T, dir string) <-chan struct{} {
	t.Helper()
	for _, f := range []string{"started.fifo", "hold.fifo"} {
		if err := sandboxtest.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan struct{})
	go func() {
		defer close(started)
		f, err := os.Open(filepath.Join(dir, "started.fifo")) // blocks until the command opens it
		if err != nil {
			return
		}
		io.Copy(io.Discard, f)
		f.Close()
	}()
	t.Cleanup(func() {
		// A run that failed before the command started leaves the
		// reader waiting for a writer: be one.
		if f, err := os.OpenFile(filepath.Join(dir, "started.fifo"), os.O_WRONLY|sandboxtest.NonBlock, 0); err == nil {
			f.Close()
		}
		<-started
	})
	return started
}

// waitClosed waits for ch, or fails the test after a generous time.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// checkKept checks the last request: the write's real result, and the
// stopped command's saying it was cancelled, each paired with its call.
func checkKept(t *testing.T, srv *fp.Server) {
	t.Helper()
	if got := toolText(t, srv, "w1"); !strings.Contains(got, "Successfully created") {
		t.Errorf("the write's result in the next request is %q, want its real success text", got)
	}
	if got := toolText(t, srv, "s1"); !strings.Contains(strings.ToLower(got), "cancel") {
		t.Errorf("the stopped command's result is %q, want one saying it was cancelled", got)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// Headless: Ctrl+C (the run's context) ends the run; --continue sends the
// results that were kept.
func parityKeepHeadless(t *testing.T) {
	dir, home := parityHome(t)
	started := batchStarted(t, dir)
	srv := fp.New(t, keepScript()...)
	r := runPlyCancel(t, dir, home, srv, func() bool {
		select {
		case <-started:
			return true
		default:
			return false
		}
	}, "-y", "-p", "write and wait")
	if r.code != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", r.code, r.stderr)
	}
	if r := runPlyHome(t, dir, home, srv, "-y", "--continue", "-p", "what happened?"); r.code != 0 {
		t.Fatalf("--continue: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	checkKept(t, srv)
}

func parityKeepSDK(t *testing.T) {
	dir := t.TempDir()
	started := batchStarted(t, dir)
	srv := fp.New(t, keepScript()...)
	p, code := startSDK(t, dir, srv, "-y")
	p.send(userMsg("write and wait"))
	waitClosed(t, started, "the batch's command to start")
	p.send(map[string]any{"type": "control_request", "request_id": "int-1", "request": map[string]any{"subtype": "interrupt"}})
	if res := p.next("result", nil); res["is_error"] != true {
		t.Fatalf("interrupted result %v", res)
	}
	p.send(userMsg("what happened?"))
	if res := p.next("result", nil); res["result"] != "next answer" {
		t.Fatalf("second result %v", res)
	}
	checkKept(t, srv)
	p.exitOf(code)
}

// The UI: Esc stops the batch; the next prompt's request carries the
// kept results.
func parityKeepTUI(t *testing.T) {
	dir, home := parityHome(t)
	started := batchStarted(t, dir)
	srv := fp.New(t, keepScript()...)
	r := startTUI(t, dir, home, srv, nil, "--approval-mode", "yolo")
	r.submit("write and wait")
	waitClosed(t, started, "the batch's command to start")
	r.keys(keyEsc)
	r.waitText("⏹ cancelled") // the interaction has ended, not only the call
	r.submit("what happened?")
	r.waitText("next answer")
	r.quit()
	checkKept(t, srv)
}

// ACP: session/cancel stops the batch (stop reason cancelled); the next
// prompt's request carries the kept results.
func parityKeepACP(t *testing.T) {
	dir, home := parityHome(t)
	started := batchStarted(t, dir)
	srv := fp.New(t, keepScript()...)
	r, ctx, id := startACPSession(t, srv, dir, home, "--yolo")
	go func() {
		<-started
		_ = r.conn.Cancel(ctx, sdk.CancelNotification{SessionId: id})
	}()
	if sr := acpPrompt(t, ctx, r, id, "write and wait"); sr != sdk.StopReasonCancelled {
		t.Fatalf("stop reason %s, want cancelled", sr)
	}
	if sr := acpPrompt(t, ctx, r, id, "what happened?"); sr != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %s after the cancel", sr)
	}
	checkKept(t, srv)
}

// ---- checkpoint_per_query ----

// checkpointScript answers two prompts; the first writes a file, so that
// the workspace differs before the second.
func checkpointScript() []fp.Turn {
	return []fp.Turn{
		{fp.ToolCall("w1", "write_file", `{"file_path":"a.txt","content":"one\n"}`)},
		{fp.Text("wrote it")},
		{fp.Text("nothing to do")},
	}
}

// checkCheckpoints checks the session of dir under home: each of its two
// prompts has its own checkpoint, taken just before it, in the store; the
// first one's has no a.txt, the second one's has it.
func checkCheckpoints(t *testing.T, home, dir string) {
	t.Helper()
	sum, err := session.Latest(home, dir)
	if err != nil {
		t.Fatal(err)
	}
	log, err := session.Prompts(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	var texts, ids []string
	for _, p := range log.Prompts {
		texts, ids = append(texts, p.Text), append(ids, p.Checkpoint)
	}
	if !slices.Equal(texts, []string{"first", "second"}) || len(ids) != 2 || ids[0] == "" || ids[0] == ids[1] {
		t.Fatalf("prompts %q with checkpoints %q; want first and second, each with a checkpoint of its own", texts, ids)
	}
	store, err := core.OpenCheckpoints(home, dir, settings.Checkpointing{}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	have, err := store.IDs()
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if !slices.Contains(have, id) {
			t.Errorf("prompt %d's checkpoint %s is not in the store (%v)", i+1, id, have)
		}
	}
	for i, want := range []bool{false, true} {
		m, err := store.Load(ids[i])
		if err != nil {
			t.Fatal(err)
		}
		has := slices.ContainsFunc(m.Entries, func(e checkpoint.Entry) bool { return e.Rel == "a.txt" })
		if has != want {
			t.Errorf("prompt %d's checkpoint holds a.txt: %v, want %v (the first prompt wrote it)", i+1, has, want)
		}
	}
}

func parityCheckpointHeadless(t *testing.T) {
	dir, home := parityHome(t)
	srv := fp.New(t, checkpointScript()...)
	for i, args := range [][]string{{"-y", "-p", "first"}, {"-y", "--continue", "-p", "second"}} {
		if r := runPlyHome(t, dir, home, srv, args...); r.code != 0 {
			t.Fatalf("prompt %d: exit %d: %s", i+1, r.code, r.stderr)
		}
	}
	checkCheckpoints(t, home, dir)
}

func parityCheckpointSDK(t *testing.T) {
	dir, home := parityHome(t)
	srv := fp.New(t, checkpointScript()...)
	p, code := startSDKHome(t, dir, home, srv, "-y")
	for _, text := range []string{"first", "second"} {
		p.send(userMsg(text))
		if res := p.next("result", nil); res["subtype"] != "success" {
			t.Fatalf("%s: result %v", text, res)
		}
	}
	p.exitOf(code)
	checkCheckpoints(t, home, dir)
}

func parityCheckpointTUI(t *testing.T) {
	dir, home := parityHome(t)
	srv := fp.New(t, checkpointScript()...)
	r := startTUI(t, dir, home, srv, nil, "--approval-mode", "yolo")
	r.submit("first")
	r.waitText("wrote it")
	r.submit("second")
	r.waitText("nothing to do")
	r.quit()
	checkCheckpoints(t, home, dir)
}

func parityCheckpointACP(t *testing.T) {
	dir, home := parityHome(t)
	srv := fp.New(t, checkpointScript()...)
	r, ctx, id := startACPSession(t, srv, dir, home, "--yolo")
	for _, text := range []string{"first", "second"} {
		if sr := acpPrompt(t, ctx, r, id, text); sr != sdk.StopReasonEndTurn {
			t.Fatalf("%s: stop reason %s", text, sr)
		}
	}
	checkCheckpoints(t, home, dir)
}
