package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
)

// diskFullAt is a transcript file whose disk fills up at the first line
// holding trigger: half of that line is written, then it and every later
// write fail with ENOSPC, as on a full disk.
type diskFullAt struct {
	w       io.Writer
	trigger []byte
	full    bool
}

func (d *diskFullAt) Write(p []byte) (int, error) {
	if d.full {
		return 0, syscall.ENOSPC
	}
	if bytes.Contains(p, d.trigger) {
		d.full = true
		n, _ := d.w.Write(p[:len(p)/2])
		return n, syscall.ENOSPC
	}
	return d.w.Write(p)
}

// fillDiskAt makes the transcripts under home fail at the first line
// holding trigger, for the rest of the test.
func fillDiskAt(t *testing.T, home, trigger string) {
	restore := session.SetWriteFault(func(path string, f io.Writer) io.Writer {
		if !strings.HasPrefix(path, home+string(filepath.Separator)) {
			return f
		}
		return &diskFullAt{w: f, trigger: []byte(trigger)}
	})
	t.Cleanup(restore)
}

// twoWrites is a model that writes a.txt, then b.txt, then stops.
func twoWrites() []fp.Turn {
	return []fp.Turn{
		{fp.ToolCall("w1", "write_file", `{"file_path":"a.txt","content":"a\n"}`)},
		{fp.ToolCall("w2", "write_file", `{"file_path":"b.txt","content":"b\n"}`)},
		{fp.Text("wrote both.")},
	}
}

// A transcript write that fails ends a headless run as an error with its
// own exit code and subtype, before the reply that could not be saved has
// its calls run; a resume then says what is missing and why.
func TestHeadlessUnsavedSessionFails(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	fillDiskAt(t, home, `b.txt`)
	srv := fp.New(t, twoWrites()...)
	r := runPlyHome(t, dir, home, srv, "-y", "-o", "stream-json", "-p", "write two files")
	if r.code != 56 {
		t.Fatalf("exit %d, want 56; stderr:\n%s", r.code, r.stderr)
	}
	res := lastResult(t, r.stdout)
	if res["is_error"] != true || res["subtype"] != "error_session_not_saved" {
		t.Fatalf("result %v, want an error_session_not_saved error", res)
	}
	if msg, _ := res["error"].(string); !strings.Contains(msg, "could not be saved") || !strings.Contains(msg, "no space left on device") {
		t.Errorf("result error %q, want what failed and why", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Errorf("the first call, saved before it ran, should have run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("the call of the reply that could not be saved ran")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2: nothing is sent after the failure", n)
	}

	// With room again, a resume says that records are missing, and why.
	restore := session.SetWriteFault(func(_ string, f io.Writer) io.Writer { return f })
	defer restore()
	srv.Append(fp.Turn{fp.Text("resumed.")})
	r = runPlyHome(t, dir, home, srv, "-y", "--continue")
	if r.code != 0 {
		t.Fatalf("--continue: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "after this line could not be saved") || !strings.Contains(r.stderr, "no space left on device") ||
		strings.Contains(r.stderr, "while it was being written") {
		t.Errorf("resume warnings do not say what was lost and why:\n%s", r.stderr)
	}
}

// In text mode the failure is the last thing on stderr, and nothing on
// stdout reads as an answer.
func TestHeadlessUnsavedSessionText(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	fillDiskAt(t, home, `b.txt`)
	srv := fp.New(t, twoWrites()...)
	r := runPlyHome(t, dir, home, srv, "-y", "-p", "write two files")
	if r.code != 56 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want 56 and nothing", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "ply: the session could not be saved") || !strings.Contains(r.stderr, "--continue") {
		t.Errorf("stderr does not say the session could not be saved:\n%s", r.stderr)
	}
}

// An SDK query that meets the failure ends with an error result; the next
// query fails at once, sending nothing, and the process exits 56.
func TestSDKUnsavedSessionFails(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	fillDiskAt(t, home, `b.txt`)
	srv := fp.New(t, twoWrites()...)
	p, code := startSDKHome(t, dir, home, srv, "-y")
	p.send(userMsg("write two files"))
	// The SDK channel keeps the SDKs' subtypes, with ply's own beside.
	res := p.next("result", nil)
	if res["is_error"] != true || res["ply_subtype"] != "error_session_not_saved" ||
		!strings.Contains(res["error"].(string), "no space left on device") {
		t.Fatalf("result %v, want an error_session_not_saved error", res)
	}
	p.send(userMsg("and another"))
	if res := p.next("result", nil); res["is_error"] != true || res["ply_subtype"] != "error_session_not_saved" {
		t.Fatalf("second result %v, want the same error", res)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2: the second query sends nothing", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("the call of the reply that could not be saved ran")
	}
	p.in.Close()
	if c := <-code; c != 56 {
		t.Errorf("exit %d, want 56", c)
	}
}

// An ACP prompt that meets the failure is answered with an error, not a
// stop reason a client would take for a finished turn.
func TestACPUnsavedSessionFails(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	fillDiskAt(t, home, `b.txt`)
	srv := fp.New(t, twoWrites()...)
	r := startACP(t, srv, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	ns := r.newSession(t, ctx, dir)
	_, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("write two files")}})
	if err == nil || !strings.Contains(err.Error(), "could not be saved") || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("session/prompt: %v; want the session's save error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("the call of the reply that could not be saved ran")
	}
}
