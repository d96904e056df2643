package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// promptHookSettings writes hooks that add context at session start and
// on every prompt, and block a prompt that says "forbidden".
func promptHookSettings(t *testing.T, home string) {
	scripts := t.TempDir()
	start := hookScript(t, scripts, "start.sh", `cat > /dev/null; echo SESSION-CTX`)
	submit := hookScript(t, scripts, "submit.sh", `if grep -q forbidden; then echo "not that" >&2; exit 2; fi; echo PROMPT-CTX`)
	writeHookSettings(t, home, map[string]any{
		"SessionStart":     []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": start}}}},
		"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": submit}}}},
	})
}

// checkPromptHookRequests checks the requests of a session whose prompts
// were "hello", "forbidden thing" and "again": SessionStart's context
// rides on the first prompt only, UserPromptSubmit's on each, and the
// blocked prompt never reached the model.
func checkPromptHookRequests(t *testing.T, reqs []fp.Request) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the blocked prompt must not be sent)", len(reqs))
	}
	first, second := lastUserText(reqs[0]), lastUserText(reqs[1])
	if !strings.Contains(first, "SESSION-CTX") || !strings.Contains(first, "PROMPT-CTX") {
		t.Errorf("the first prompt lacks the hooks' context: %q", first)
	}
	if strings.Contains(second, "SESSION-CTX") || !strings.Contains(second, "PROMPT-CTX") {
		t.Errorf("the later prompt has the wrong context: %q", second)
	}
	for _, r := range reqs {
		for _, m := range r.Messages {
			if strings.Contains(m.Text(), "forbidden") {
				t.Errorf("the blocked prompt reached the model: %q", m.Text())
			}
		}
	}
}

// Under the SDK, as in every other entry, SessionStart runs before the
// first prompt and UserPromptSubmit before each, and a blocking hook
// stops its prompt.
func TestPromptHooksSDK(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	promptHookSettings(t, home)
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")})
	p, code := startSDKHome(t, dir, home, srv)
	p.send(userMsg("hello"))
	if res := p.next("result", nil); res["subtype"] != "success" {
		t.Fatalf("first result %v", res)
	}
	p.send(userMsg("forbidden thing"))
	res := p.next("result", nil)
	if msg, _ := res["error"].(string); res["is_error"] != true || !strings.Contains(msg, "blocked by a UserPromptSubmit hook: not that") {
		t.Errorf("the blocked prompt's result %v", res)
	}
	p.send(userMsg("again"))
	if res := p.next("result", nil); res["subtype"] != "success" {
		t.Fatalf("third result %v", res)
	}
	p.exitOf(code)
	checkPromptHookRequests(t, srv.Requests())
}

func TestPromptHooksACP(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	promptHookSettings(t, home)
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")})
	r := startACP(t, srv, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	for _, c := range []struct {
		text string
		want sdk.StopReason
	}{{"hello", sdk.StopReasonEndTurn}, {"forbidden thing", sdk.StopReasonRefusal}, {"again", sdk.StopReasonEndTurn}} {
		resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(c.text)}})
		if err != nil || resp.StopReason != c.want {
			t.Fatalf("prompt %q: %+v, %v; want %s", c.text, resp, err, c.want)
		}
	}
	if got := r.client.seen(); !strings.Contains(got, "The prompt was blocked by a UserPromptSubmit hook: not that") {
		t.Errorf("the client was not told why the prompt was refused:\n%s", got)
	}
	checkPromptHookRequests(t, srv.Requests())
}

// Headless -p: a blocking hook ends the run with exit 1 and the reason,
// before anything is sent.
func TestPromptHooksHeadlessBlock(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	promptHookSettings(t, home)
	srv := fp.New(t, fp.Turn{fp.Text("one")})
	r := runPlyHome(t, dir, home, srv, "-p", "forbidden thing")
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "blocked by a UserPromptSubmit hook: not that") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent for a blocked prompt", n)
	}
	srv.Append(fp.Turn{fp.Text("two")})
	r = runPlyHome(t, t.TempDir(), home, srv, "-p", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := lastUserText(srv.Requests()[0]); !strings.Contains(got, "SESSION-CTX") || !strings.Contains(got, "PROMPT-CTX") {
		t.Errorf("the prompt lacks the hooks' context: %q", got)
	}
}

// A hook's input names the approval mode as it is when the hook runs,
// after a change mid-session too.
func TestHookInputFollowsTheMode(t *testing.T) {
	dir, home, scripts := t.TempDir(), filepath.Join(t.TempDir(), "home"), t.TempDir()
	log := filepath.Join(scripts, "inputs.log")
	submit := hookScript(t, scripts, "submit.sh", `cat >> `+log+`; echo >> `+log)
	writeHookSettings(t, home, map[string]any{
		"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": submit}}}},
	})
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")})
	p, code := startSDKHome(t, dir, home, srv)
	p.send(userMsg("hello"))
	p.next("result", nil)
	p.control("m1", map[string]any{"subtype": "set_permission_mode", "mode": "plan"})
	p.send(userMsg("again"))
	p.next("result", nil)
	p.exitOf(code)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"permission_mode":"default"`) || !strings.Contains(lines[1], `"permission_mode":"plan"`) {
		t.Errorf("hook inputs:\n%s", b)
	}
}
