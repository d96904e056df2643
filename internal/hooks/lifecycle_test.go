package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// kinds are the two ways a hook runs; every case of these tests runs
// with both.
var kinds = []string{"command", TypeHTTP}

// answering returns a hook of kind that records its input in name.json
// in the workspace and answers with body: a script printing it, or an
// httptest server returning it with status 200.
func (e *env) answering(kind, name, body string) Command {
	e.t.Helper()
	if strings.Contains(body, "'") {
		e.t.Fatalf("answer %q: no single quotes, please", body)
	}
	if kind != TypeHTTP {
		return Command{Command: e.script(name+".sh", `cat > `+name+`.json; printf '%s' '`+body+`'`)}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := os.WriteFile(filepath.Join(e.dir, name+".json"), b, 0o600); err != nil {
			e.t.Error(err)
		}
		io.WriteString(w, body)
	}))
	e.t.Cleanup(srv.Close)
	return Command{Type: TypeHTTP, URL: srv.URL + "/" + name}
}

func TestPostToolUseFailure(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			h := e.answering(kind, "fail", `{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"run it with -v"}}`)
			r := e.runner(Config{PostToolUseFailure: {{Matcher: "Bash", Hooks: []Command{h}}}})
			got := r.PostToolUseFailure(ctx, "run_shell_command", "c1", json.RawMessage(`{"command":"make"}`), "exit status 2", false)
			if got != "run it with -v" {
				t.Errorf("context = %q", got)
			}
			in := e.readJSON("fail.json")
			if in["hook_event_name"] != PostToolUseFailure || in["error"] != "exit status 2" || in["is_interrupt"] != false || in["tool_use_id"] != "c1" {
				t.Errorf("input = %v", in)
			}
			if got := r.PostToolUseFailure(ctx, "edit", "c2", nil, "no match", false); got != "" {
				t.Errorf("edit matched Bash: %q", got)
			}

			e2 := newEnv(t)
			r2 := e2.runner(Config{PostToolUseFailure: {{Hooks: []Command{e2.answering(kind, "b", `{"decision":"block","reason":"the build is broken, stop editing"}`)}}}})
			if got := r2.PostToolUseFailure(ctx, "edit", "c3", nil, "x", false); got != "the build is broken, stop editing" {
				t.Errorf("block reason = %q", got)
			}
		})
	}
}

// The scheduler adapter fires PostToolUseFailure, not PostToolUse, for
// a call that failed.
func TestSchedulerFailureEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	post := e.script("post.sh", `cat > post.json; echo '{"hookSpecificOutput":{"additionalContext":"post"}}'`)
	fail := e.script("fail.sh", `cat > fail.json; echo '{"hookSpecificOutput":{"additionalContext":"try --force"}}'`)
	r := e.runner(Config{PostToolUse: {{Hooks: []Command{{Command: post}}}}, PostToolUseFailure: {{Hooks: []Command{{Command: fail}}}}})
	s := scheduler.New(tools.NewRegistry(failTool{}), scheduler.WithHooks(ForScheduler(r)))
	calls, err := s.Run(ctx, []scheduler.Request{{CallID: "f1", Name: "failing", Args: `{}`}})
	if err != nil {
		t.Fatal(err)
	}
	if got := calls[0].Response().Output; !strings.HasSuffix(got, "[PostToolUseFailure hook]: try --force") {
		t.Errorf("output = %q", got)
	}
	if in := e.readJSON("fail.json"); !strings.Contains(in["error"].(string), "it broke") || in["tool_name"] != "failing" {
		t.Errorf("input = %v", in)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "post.json")); err == nil {
		t.Error("PostToolUse fired for a failed call")
	}
}

type failTool struct{}

func (failTool) Name() string            { return "failing" }
func (failTool) Description() string     { return "fails" }
func (failTool) Kind() tools.Kind        { return tools.KindRead }
func (failTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (failTool) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	return tools.Errorf("BROKEN", "it broke"), nil
}

func TestPermissionRequest(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			for _, tc := range []struct {
				name, answer string
				want         *PermissionAnswer
			}{
				{"allow", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, &PermissionAnswer{}},
				{"deny", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on Fridays"}}}`, &PermissionAnswer{Deny: true, Message: "not on Fridays"}},
				{"interrupt", `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"stop","interrupt":true}}}`, &PermissionAnswer{Deny: true, Message: "stop", Interrupt: true}},
				{"block", `{"decision":"block","reason":"blocked"}`, &PermissionAnswer{Deny: true, Message: "blocked"}},
				{"none", `{}`, nil},
			} {
				e := newEnv(t)
				r := e.runner(Config{PermissionRequest: {{Matcher: "Bash", Hooks: []Command{e.answering(kind, "perm", tc.answer)}}}})
				got, err := r.PermissionRequest(ctx, "run_shell_command", "c1", json.RawMessage(`{"command":"git push"}`))
				if err != nil {
					t.Fatal(err)
				}
				if (got == nil) != (tc.want == nil) || (got != nil && (got.Deny != tc.want.Deny || got.Message != tc.want.Message || got.Interrupt != tc.want.Interrupt)) {
					t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
				}
				in := e.readJSON("perm.json")
				if ti, _ := in["tool_input"].(map[string]any); in["hook_event_name"] != PermissionRequest || ti["command"] != "git push" {
					t.Errorf("%s: input = %v", tc.name, in)
				}
			}
		})
	}
}

// A script's exit code 2 denies with its stderr.
func TestPermissionRequestExit2(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.runner(one(PermissionRequest, "", `echo "ask the lead" >&2; exit 2`, 0))
	got, err := r.PermissionRequest(ctx, "edit", "c1", nil)
	if err != nil || got == nil || !got.Deny || got.Message != "ask the lead" {
		t.Errorf("got %+v, %v", got, err)
	}
}

// Through the approver wrapper: a hook's answer replaces the user's; no
// answer asks the user, and the Notification hooks hear of it.
func TestApproverWrapper(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			perm := e.answering(kind, "perm", `{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}`)
			note := e.answering(kind, "note", `{}`)
			r := e.runner(Config{
				PermissionRequest: {{Matcher: "write_file", Hooks: []Command{perm}}},
				Notification:      {{Matcher: "permission_prompt", Hooks: []Command{note}}},
			})
			var asked []string
			a := Approver(r, approver(func(c *scheduler.Call) scheduler.Decision {
				asked = append(asked, c.Name)
				return scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: "user says no"}
			}))
			d, err := a.Approve(ctx, &scheduler.Call{Request: scheduler.Request{Name: "write_file", CallID: "w1"}})
			if err != nil || d.Outcome != scheduler.OutcomeAllowOnce || len(asked) != 0 {
				t.Errorf("write_file: %+v %v, asked %v", d, err, asked)
			}
			if _, err := os.Stat(filepath.Join(e.dir, "note.json")); err == nil {
				t.Error("the user was notified of a call a hook decided")
			}
			d, err = a.Approve(ctx, &scheduler.Call{Request: scheduler.Request{Name: "edit", CallID: "e1"}})
			if err != nil || d.Outcome != scheduler.OutcomeDeny || d.Reason != "user says no" || len(asked) != 1 {
				t.Errorf("edit: %+v %v, asked %v", d, err, asked)
			}
			in := e.readJSON("note.json")
			if in["hook_event_name"] != Notification || in["notification_type"] != NotifyPermission || !strings.Contains(in["message"].(string), "edit") {
				t.Errorf("notification input = %v", in)
			}
		})
	}
	if a := Approver(nil, nil); a != nil {
		t.Errorf("no approver wrapped into %v", a)
	}
}

func TestNotification(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			r := e.runner(Config{Notification: {{Matcher: "idle_prompt", Hooks: []Command{e.answering(kind, "n", `{"decision":"block","reason":"shush"}`)}}}})
			r.Notify(ctx, NotifyPermission, "t", "not matched")
			if _, err := os.Stat(filepath.Join(e.dir, "n.json")); err == nil {
				t.Error("the matcher let permission_prompt through")
			}
			r.Notify(ctx, NotifyIdle, "Waiting", "ply is waiting for your input")
			in := e.readJSON("n.json")
			if in["notification_type"] != NotifyIdle || in["title"] != "Waiting" || in["message"] != "ply is waiting for your input" {
				t.Errorf("input = %v", in)
			}
			if w := e.reported(); len(w) != 1 || !errors.Is(w[0], ErrIgnored) {
				t.Errorf("a block should be reported as ignored: %v", w)
			}
		})
	}
}

func TestSubagentStartStop(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			start := e.answering(kind, "start", `{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"use the staging database"}}`)
			stop := e.answering(kind, "stop", `{"decision":"block","reason":"also run the tests"}`)
			r := e.runner(Config{
				SubagentStart: {{Matcher: "reviewer", Hooks: []Command{start}}},
				SubagentStop:  {{Matcher: "reviewer", Hooks: []Command{stop}}},
			})
			if got := r.SubagentStart(ctx, "call-1", "reviewer"); got != "use the staging database" {
				t.Errorf("start context = %q", got)
			}
			if got := r.SubagentStart(ctx, "call-2", "general-purpose"); got != "" {
				t.Errorf("matcher ignored: %q", got)
			}
			if in := e.readJSON("start.json"); in["agent_id"] != "call-1" || in["agent_type"] != "reviewer" {
				t.Errorf("start input = %v", in)
			}
			check := r.SubagentStopper("call-1", "reviewer")
			block, reason := check(ctx, "done, LGTM")
			if !block || reason != "also run the tests" {
				t.Errorf("stop = %v %q", block, reason)
			}
			if in := e.readJSON("stop.json"); in["stop_hook_active"] != false || in["last_assistant_message"] != "done, LGTM" {
				t.Errorf("stop input = %v", in)
			}
			check(ctx, "tests pass")
			if in := e.readJSON("stop.json"); in["stop_hook_active"] != true {
				t.Errorf("second stop input = %v", in)
			}
		})
	}
	if (*Runner)(nil).SubagentStopper("a", "b") != nil {
		t.Error("no hooks should give no stop check")
	}
}

func TestCompactHooks(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			pre := e.answering(kind, "pre", `{"decision":"block","reason":"save the notes first"}`)
			post := e.answering(kind, "post", `{"hookSpecificOutput":{"additionalContext":"ignored"}}`)
			r := e.runner(Config{
				PreCompact:  {{Matcher: "auto", Hooks: []Command{pre}}},
				PostCompact: {{Hooks: []Command{post}}},
			})
			if block, _ := r.PreCompact(ctx, "manual", "keep the API names"); block {
				t.Error("the matcher let manual through")
			}
			block, reason := r.PreCompact(ctx, "auto", "")
			if !block || reason != "save the notes first" {
				t.Errorf("pre = %v %q", block, reason)
			}
			if in := e.readJSON("pre.json"); in["trigger"] != "auto" || in["custom_instructions"] != "" {
				t.Errorf("pre input = %v", in)
			}
			r.PostCompact(ctx, "manual", "the summary")
			if in := e.readJSON("post.json"); in["trigger"] != "manual" || in["compact_summary"] != "the summary" || in["hook_event_name"] != PostCompact {
				t.Errorf("post input = %v", in)
			}
		})
	}
}

// Every event ply fires reaches an http hook, with its name and the
// fields every event carries.
func TestHTTPHookEveryEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	got := make(chan map[string]any, 32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s with %q", r.Method, r.Header.Get("Content-Type"))
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			t.Error(err)
		}
		got <- in
	}))
	defer srv.Close()
	cfg := Config{}
	events := []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch,
		PermissionRequest, Notification, SubagentStart, SubagentStop, PreCompact, PostCompact, Stop, SessionEnd}
	for _, ev := range events {
		cfg[ev] = []Group{{Hooks: []Command{{Type: TypeHTTP, URL: srv.URL}}}}
	}
	r := e.runner(cfg)
	in := json.RawMessage(`{}`)
	r.SessionStart(ctx, "startup")
	r.UserPromptSubmit(ctx, "hi")
	r.PreToolUse(ctx, "edit", "1", in)
	r.PostToolUse(ctx, "edit", "1", in, in)
	r.PostToolUseFailure(ctx, "edit", "1", in, "no", false)
	r.PostToolBatch(ctx, []BatchCall{{ToolName: "edit"}})
	r.PermissionRequest(ctx, "edit", "1", in)
	r.Notify(ctx, NotifyIdle, "", "waiting")
	r.SubagentStart(ctx, "a", "t")
	r.SubagentStop(ctx, "a", "t", "", false)
	r.PreCompact(ctx, "auto", "")
	r.PostCompact(ctx, "auto", "s")
	r.Stop(ctx, "bye")
	r.SessionEnd(ctx, "other")
	for _, ev := range events {
		in := <-got
		if in["hook_event_name"] != ev || in["session_id"] != "sess-1" || in["cwd"] != e.dir {
			t.Errorf("want %s, got %v", ev, in)
		}
	}
	if w := e.reported(); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
}

func TestHTTPHookHeadersAndFailures(t *testing.T) {
	t.Setenv("PLY_HOOK_TEAM", "team-7")
	t.Setenv("PLY_HOOK_SECRET", "must-not-leak")
	t.Setenv("PLY_HOOK_TOKEN", "withheld-like-from-the-shell")
	e := newEnv(t)
	var header string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/headers":
			header = r.Header.Get("Authorization") + "|" + r.Header.Get("X-Other")
		case "/500":
			http.Error(w, "database down", http.StatusInternalServerError)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second):
			}
		case "/text":
			io.WriteString(w, "not json but context")
		case "/badjson":
			io.WriteString(w, `{"decision": "maybe"}`)
		case "/redirect":
			http.Redirect(w, r, "/text", http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()
	h := func(path string) Command { return Command{Type: TypeHTTP, URL: srv.URL + path} }
	hdr := h("/headers")
	// TEAM is allowed and passes; SECRET is not listed; TOKEN is listed
	// but, as a secret, not in the hooks' environment.
	hdr.Headers = map[string]string{"Authorization": "Team $PLY_HOOK_TEAM tok=$PLY_HOOK_TOKEN", "X-Other": "${PLY_HOOK_SECRET}!"}
	hdr.AllowedEnvVars = []string{"PLY_HOOK_TEAM", "PLY_HOOK_TOKEN"}
	r := e.runner(Config{Stop: {{Hooks: []Command{hdr}}}})
	r.Run(ctx, Stop, Input{})
	if header != "Team team-7 tok=|!" {
		t.Errorf("headers = %q", header)
	}

	for path, want := range map[string]error{"/500": ErrExitStatus, "/badjson": ErrBadOutput, "/redirect": ErrExitStatus} {
		e := newEnv(t)
		r := e.runner(Config{Stop: {{Hooks: []Command{h(path)}}}})
		if d, _ := r.Run(ctx, Stop, Input{}); d.Block {
			t.Errorf("%s blocked", path)
		}
		if w := e.reported(); len(w) != 1 || !errors.Is(w[0], want) {
			t.Errorf("%s: warnings %v, want %v", path, w, want)
		}
	}
	slow := h("/slow")
	slow.Timeout = 200 * time.Millisecond
	e2 := newEnv(t)
	start := time.Now()
	e2.runner(Config{Stop: {{Hooks: []Command{slow}}}}).Run(ctx, Stop, Input{})
	if w := e2.reported(); len(w) != 1 || !errors.Is(w[0], ErrTimeout) || time.Since(start) > 3*time.Second {
		t.Errorf("slow: %v after %v", w, time.Since(start))
	}
	// Plain text is context for UserPromptSubmit, as a command's stdout.
	e3 := newEnv(t)
	_, _, c := e3.runner(Config{UserPromptSubmit: {{Hooks: []Command{h("/text")}}}}).UserPromptSubmit(ctx, "x")
	if c != "not json but context" {
		t.Errorf("context = %q", c)
	}
}

func TestParseHTTPHook(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
		{"type":"http","url":"https://hooks.example/pre","timeout":5,"headers":{"Authorization":"Bearer $T"},"allowedEnvVars":["T"]}]}],
		"Stop":[{"type":"http","url":"http://127.0.0.1:9/stop"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := c[PreToolUse][0].Hooks[0]
	if h.Type != TypeHTTP || h.URL != "https://hooks.example/pre" || h.Timeout != 5*time.Second || h.Headers["Authorization"] != "Bearer $T" || h.AllowedEnvVars[0] != "T" {
		t.Errorf("parsed %+v", h)
	}
	if c[Stop][0].Hooks[0].URL != "http://127.0.0.1:9/stop" {
		t.Errorf("flat http hook: %+v", c[Stop])
	}
	for _, bad := range []string{
		`{"hooks":{"Stop":[{"hooks":[{"type":"http"}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"file:///etc/passwd"}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"/relative"}]}]}}`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func FuzzExpandHeader(f *testing.F) {
	for _, s := range []string{"Bearer $A", "${A}${B}", "$", "${", "$1A", "x$A_B y", "${A"} {
		f.Add(s)
	}
	lookup := func(name string) (string, bool) { return "<" + name + ">", true }
	f.Fuzz(func(t *testing.T, v string) {
		out := expandHeader(v, []string{"A"}, lookup)
		// Only the allowed variable's value may appear.
		if strings.Contains(strings.ReplaceAll(out, "<A>", ""), "<") && !strings.Contains(v, "<") {
			t.Errorf("%q expanded to %q", v, out)
		}
	})
}

// The first seven events' decisions, given by http hooks: the same
// semantics as the command hooks' tests above.
func TestHTTPHookDecisions(t *testing.T) {
	t.Parallel()
	hook := func(t *testing.T, event, body string) (*env, *Runner) {
		e := newEnv(t)
		return e, e.runner(Config{event: {{Hooks: []Command{e.answering(TypeHTTP, "h", body)}}}})
	}
	t.Run("SessionStart", func(t *testing.T) {
		_, r := hook(t, SessionStart, `{"hookSpecificOutput":{"additionalContext":"branch main"}}`)
		if got := r.SessionStart(ctx, "startup"); got != "branch main" {
			t.Errorf("context %q", got)
		}
	})
	t.Run("UserPromptSubmit", func(t *testing.T) {
		_, r := hook(t, UserPromptSubmit, `{"decision":"block","reason":"no secrets"}`)
		if block, reason, _ := r.UserPromptSubmit(ctx, "x"); !block || reason != "no secrets" {
			t.Errorf("block %v %q", block, reason)
		}
		_, r = hook(t, UserPromptSubmit, `{"hookSpecificOutput":{"additionalContext":"ticket 42"}}`)
		if block, _, c := r.UserPromptSubmit(ctx, "x"); block || c != "ticket 42" {
			t.Errorf("context %v %q", block, c)
		}
	})
	t.Run("PreToolUse", func(t *testing.T) {
		for body, want := range map[string]Verdict{
			`{"hookSpecificOutput":{"permissionDecision":"allow"}}`:                                VerdictAllow,
			`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`: VerdictDeny,
			`{"hookSpecificOutput":{"permissionDecision":"ask"}}`:                                  VerdictAsk,
			`{"decision":"block","reason":"blocked"}`:                                              VerdictDeny,
		} {
			_, r := hook(t, PreToolUse, body)
			if p, err := r.PreToolUse(ctx, "edit", "1", json.RawMessage(`{}`)); err != nil || p.Verdict != want {
				t.Errorf("%s: %v %v", body, p.Verdict, err)
			}
		}
	})
	t.Run("PostToolUse", func(t *testing.T) {
		_, r := hook(t, PostToolUse, `{"hookSpecificOutput":{"additionalContext":"formatted"}}`)
		if got := r.PostToolUse(ctx, "edit", "1", nil, nil); got != "formatted" {
			t.Errorf("context %q", got)
		}
	})
	t.Run("PostToolBatch", func(t *testing.T) {
		_, r := hook(t, PostToolBatch, `{"decision":"block","reason":"coverage dropped"}`)
		if stop, reason := r.PostToolBatch(ctx, []BatchCall{{ToolName: "edit"}}); !stop || reason != "coverage dropped" {
			t.Errorf("stop %v %q", stop, reason)
		}
	})
	t.Run("Stop", func(t *testing.T) {
		_, r := hook(t, Stop, `{"decision":"block","reason":"run the tests"}`)
		if block, reason := r.Stop(ctx, "done"); !block || reason != "run the tests" {
			t.Errorf("block %v %q", block, reason)
		}
	})
	t.Run("SessionEnd", func(t *testing.T) {
		e, r := hook(t, SessionEnd, `{}`)
		r.SessionEnd(ctx, "other")
		if in := e.readJSON("h.json"); in["reason"] != "other" {
			t.Errorf("input %v", in)
		}
	})
}
