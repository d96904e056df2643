package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// writeHookSettings writes ply's user settings with hooks.
func writeHookSettings(t *testing.T, home string, hooks map[string]any) {
	t.Helper()
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	if err := os.WriteFile(filepath.Join(home, "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%q", p)
}

// A subagent hears SubagentStart's context with its task; a SubagentStop
// hook that blocks once makes it go on with the reason.
func TestSubagentHooksFire(t *testing.T) {
	dir, home, scripts := t.TempDir(), filepath.Join(t.TempDir(), "home"), t.TempDir()
	log := filepath.Join(scripts, "events.log")
	start := hookScript(t, scripts, "start.sh", `cat >> `+log+`; echo >> `+log+`; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"the staging DB is read-only"}}'`)
	stop := hookScript(t, scripts, "stop.sh", `input=$(cat); echo "$input" >> `+log+`
case "$input" in *'"stop_hook_active":false'*) echo "also list the tests you ran" >&2; exit 2 ;; esac`)
	writeHookSettings(t, home, map[string]any{
		"SubagentStart": []any{map[string]any{"matcher": "general-purpose", "hooks": []any{map[string]any{"type": "command", "command": start}}}},
		"SubagentStop":  []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": stop}}}},
	})
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("a1", "agent", `{"subagent_type":"general-purpose","description":"check","prompt":"check the schema"}`)},
		fp.Turn{fp.Text("schema fine")},
		fp.Turn{fp.Text("schema fine; ran 3 tests")},
		fp.Turn{fp.Text("all good")},
	)
	r := runPlyHome(t, dir, home, srv, "-p", "go")
	if r.code != 0 || r.stdout != "all good\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
	if !strings.Contains(first, "check the schema") || !strings.Contains(first, "the staging DB is read-only") {
		t.Errorf("the subagent's task = %q", first)
	}
	again := reqs[2].Messages[len(reqs[2].Messages)-1].Text()
	if !strings.Contains(again, "also list the tests you ran") {
		t.Errorf("the subagent's continuation = %q", again)
	}
	got, _ := os.ReadFile(log)
	for _, want := range []string{`"hook_event_name":"SubagentStart"`, `"agent_id":"a1"`, `"agent_type":"general-purpose"`,
		`"hook_event_name":"SubagentStop"`, `"stop_hook_active":true`, `"last_assistant_message":"schema fine; ran 3 tests"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("hook inputs lack %s:\n%s", want, got)
		}
	}
	if !strings.Contains(reqs[3].Messages[len(reqs[3].Messages)-1].Text(), "schema fine; ran 3 tests") {
		t.Errorf("the main agent got the wrong report")
	}
}

// Through the SDK: an http PermissionRequest hook allows the shell
// command in the user's place; the write it does not match is put to
// the SDK, and a Notification hook hears of that.
func TestPermissionRequestHookFires(t *testing.T) {
	dir, home, scripts := t.TempDir(), filepath.Join(t.TempDir(), "home"), t.TempDir()
	var mu sync.Mutex
	var asked []string
	hookSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		asked = append(asked, string(b))
		mu.Unlock()
		io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`)
	}))
	defer hookSrv.Close()
	notes := filepath.Join(scripts, "notes.log")
	writeHookSettings(t, home, map[string]any{
		"PermissionRequest": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "http", "url": hookSrv.URL}}}},
		"Notification":      []any{map[string]any{"matcher": "permission_prompt", "hooks": []any{map[string]any{"command": "cat >> " + notes}}}},
	})
	srv := fp.New(t,
		fp.Turn{
			fp.ToolCall("s1", "run_shell_command", `{"command":"echo ok > allowed.txt"}`),
			fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": filepath.Join(dir, "w.txt"), "content": "x"})),
		},
		fp.Turn{fp.Text("done")},
	)
	p, code := startSDKHome(t, dir, home, srv)
	p.send(userMsg("go"))
	req := p.next("control_request", nil)
	r := req["request"].(map[string]any)
	if r["subtype"] != "can_use_tool" || r["tool_name"] != "write_file" {
		t.Fatalf("the SDK was asked %v; the hook should have answered for the shell command", r)
	}
	p.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": req["request_id"], "response": map[string]any{"behavior": "deny", "message": "no"}}})
	if res := p.next("result", nil); res["result"] != "done" {
		t.Fatalf("result %v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "allowed.txt")); strings.TrimSpace(string(b)) != "ok" {
		t.Error("the command the hook allowed did not run")
	}
	mu.Lock()
	if len(asked) != 1 || !strings.Contains(asked[0], `"tool_name":"run_shell_command"`) || !strings.Contains(asked[0], `"hook_event_name":"PermissionRequest"`) {
		t.Errorf("the hook was asked %v", asked)
	}
	mu.Unlock()
	got, _ := os.ReadFile(notes)
	if !strings.Contains(string(got), `"notification_type":"permission_prompt"`) || !strings.Contains(string(got), "write_file") {
		t.Errorf("notification inputs: %s", got)
	}
	p.in.Close()
	<-code
}
