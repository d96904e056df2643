package cli

import (
	"os"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// ---- prompt_hooks: UserPromptSubmit (blocking), SessionStart, Stop ----

// parityHooks returns the hooks of promptHookSettings (context at session
// start and on each prompt, a block for "forbidden") and a Stop hook that
// logs its input, and a function that counts the Stop hook's runs.
func parityHooks(t *testing.T) (hooks map[string]any, stops func() int) {
	t.Helper()
	scripts := t.TempDir()
	log := scripts + "/stop.log"
	start := hookScript(t, scripts, "start.sh", `cat > /dev/null; echo SESSION-CTX`)
	submit := hookScript(t, scripts, "submit.sh", `if grep -q forbidden; then echo "not that" >&2; exit 2; fi; echo PROMPT-CTX`)
	stop := hookScript(t, scripts, "stop.sh", `cat >> `+log+`; echo >> `+log)
	hooks = map[string]any{
		"SessionStart":     []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": start}}}},
		"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": submit}}}},
		"Stop":             []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": stop}}}},
	}
	return hooks, func() int {
		b, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), `"hook_event_name":"Stop"`)
	}
}

// parityHookSettings writes parityHooks to ply's user settings.
func parityHookSettings(t *testing.T, home string) (stops func() int) {
	t.Helper()
	hooks, stops := parityHooks(t)
	writeHookSettings(t, home, hooks)
	return stops
}

// twoAnswers answers the two prompts the hooks let through.
func twoAnswers() []fp.Turn {
	return []fp.Turn{{fp.Text("answer one")}, {fp.Text("answer two")}}
}

// checkStops checks that the Stop hook ran once for each answered prompt.
func checkStops(t *testing.T, stops func() int, want int) {
	t.Helper()
	if n := stops(); n != want {
		t.Errorf("the Stop hook ran %d times, want %d (once per answered prompt)", n, want)
	}
}

// Headless runs one prompt: a blocked one ends the run (exit 1) before
// anything is sent or any Stop; the next run's prompt carries both
// hooks' context and ends with Stop.
func parityHooksHeadless(t *testing.T) {
	dir, home := parityHome(t)
	stops := parityHookSettings(t, home)
	srv := fp.New(t, twoAnswers()[0])
	r := runPlyHome(t, dir, home, srv, "-p", "forbidden thing")
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "blocked by a UserPromptSubmit hook: not that") {
		t.Fatalf("blocked prompt: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent for a blocked prompt", n)
	}
	checkStops(t, stops, 0)
	r = runPlyHome(t, dir, home, srv, "-p", "hello")
	if r.code != 0 || r.stdout != "answer one\n" {
		t.Fatalf("exit %d, stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	if got := lastUserText(srv.Requests()[0]); !strings.Contains(got, "SESSION-CTX") || !strings.Contains(got, "PROMPT-CTX") {
		t.Errorf("the prompt lacks the hooks' context: %q", got)
	}
	checkStops(t, stops, 1)
}

func parityHooksSDK(t *testing.T) {
	dir, home := parityHome(t)
	stops := parityHookSettings(t, home)
	srv := fp.New(t, twoAnswers()...)
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
	checkStops(t, stops, 2)
}

// The UI shows a blocked prompt's reason and sends nothing for it.
func parityHooksTUI(t *testing.T) {
	dir, home := parityHome(t)
	hooks, stops := parityHooks(t)
	srv := fp.New(t, twoAnswers()...)
	r := startTUI(t, dir, home, srv, map[string]any{"hooks": hooks})
	r.submit("hello")
	r.waitText("answer one")
	r.submit("forbidden thing")
	r.waitText("not that")
	r.submit("again")
	r.waitText("answer two")
	if c := r.quit(); c != 0 {
		t.Errorf("exit %d", c)
	}
	checkPromptHookRequests(t, srv.Requests())
	checkStops(t, stops, 2)
}

// ACP refuses a blocked prompt (stop reason refusal) and tells the client
// why.
func parityHooksACP(t *testing.T) {
	dir, home := parityHome(t)
	stops := parityHookSettings(t, home)
	srv := fp.New(t, twoAnswers()...)
	r, ctx, id := startACPSession(t, srv, dir, home)
	for _, c := range []struct {
		text string
		want sdk.StopReason
	}{{"hello", sdk.StopReasonEndTurn}, {"forbidden thing", sdk.StopReasonRefusal}, {"again", sdk.StopReasonEndTurn}} {
		if sr := acpPrompt(t, ctx, r, id, c.text); sr != c.want {
			t.Fatalf("prompt %q: stop reason %s, want %s", c.text, sr, c.want)
		}
	}
	if got := r.client.seen(); !strings.Contains(got, "The prompt was blocked by a UserPromptSubmit hook: not that") {
		t.Errorf("the client was not told why the prompt was refused:\n%s", got)
	}
	checkPromptHookRequests(t, srv.Requests())
	checkStops(t, stops, 2)
}
