package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestQwenSDKSession runs testdata/sdk/session.mjs, which drives ply with
// the real @qwen-code/sdk through resume and forkSession, each control
// method of the SDK's Query, interrupt(), and a canUseTool deny with
// interrupt. Like TestQwenSDK it skips where node, npm or the package is
// missing.
func TestQwenSDKSession(t *testing.T) {
	t.Parallel()
	node, modules := nodeWith(t, "@qwen-code/sdk", qwenSDKVersion)
	bin := buildPly(t)

	t.Run("resume and fork", func(t *testing.T) {
		srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")}, fp.Turn{fp.Text("three")})
		out := runSessionScript(t, node, modules, bin, srv, "resume")
		var session string
		results := map[float64]map[string]any{}
		for _, m := range out {
			if m["test"] == "session" {
				session = m["id"].(string)
			}
			if msg, ok := m["msg"].(map[string]any); ok && msg["type"] == "result" {
				results[m["query"].(float64)] = msg
			}
		}
		for n, want := range map[float64]string{1: "one", 2: "two", 3: "three"} {
			if r := results[n]; r == nil || r["subtype"] != "success" || r["result"] != want {
				t.Fatalf("query %v ended with %v, want a success with %q", n, r, want)
			}
		}
		if results[2]["session_id"] != session {
			t.Errorf("the resumed query ran in session %v, want %v", results[2]["session_id"], session)
		}
		if results[3]["session_id"] == session {
			t.Errorf("the fork ran in the session it copied (%v)", session)
		}
		reqs := srv.Requests()
		if len(reqs[1].Messages) < 3 || len(reqs[2].Messages) < 5 {
			t.Errorf("the resumed and forked requests carry %d and %d messages, want the earlier exchanges too",
				len(reqs[1].Messages), len(reqs[2].Messages))
		}
	})

	t.Run("control requests and interrupt", func(t *testing.T) {
		srv := fp.New(t,
			fp.Turn{fp.Text("hello")},
			fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"sleep 30"}`)},
		)
		out := runSessionScript(t, node, modules, bin, srv, "controls")
		answers := map[string]map[string]any{}
		var second map[string]any
		for _, m := range out {
			if name, ok := m["test"].(string); ok {
				v, _ := m["value"].(map[string]any)
				answers[name] = v
			}
			if msg, ok := m["msg"].(map[string]any); ok && msg["type"] == "result" && m["query"] == 2.0 {
				second = msg
			}
		}
		check := func(name string, ok bool) {
			t.Helper()
			if !ok {
				t.Errorf("%s answered %v", name, answers[name])
			}
		}
		a := answers
		check("initial_effort", a["initial_effort"] != nil && a["initial_effort"]["applied"] == true)
		_, cmds := a["supported_commands"]["commands"].([]any)
		check("supported_commands", cmds)
		_, servers := a["mcp_server_status"]["mcpServers"].([]any)
		check("mcp_server_status", servers)
		cats, _ := a["get_context_usage"]["categories"].(map[string]any)
		check("get_context_usage", cats != nil && cats["history"].(float64) > 0 && cats["system_prompt"].(float64) > 0)
		check("set_effort", a["set_effort"] != nil && a["set_effort"]["applied"] == true)
		models, _ := a["get_available_models"]["models"].([]any)
		check("get_available_models", len(models) > 0 && models[0].(map[string]any)["id"] == "m")
		check("get_usage_info", a["get_usage_info"] != nil && a["get_usage_info"]["queries"] == 1.0)
		check("continue_last_turn", a["continue_last_turn"] != nil && a["continue_last_turn"]["accepted"] == false)
		// The effort option and set_effort reach the provider.
		if reqs := srv.Requests(); len(reqs) < 2 || reqs[0].Body["reasoning_effort"] != "medium" || reqs[1].Body["reasoning_effort"] != "high" {
			t.Errorf("reasoning_effort of the queries: want medium then high; got %d requests", len(reqs))
			for _, r := range reqs {
				t.Logf("reasoning_effort %v", r.Body["reasoning_effort"])
			}
		}
		// The SDK types a result's subtype as success, error_max_turns or
		// error_during_execution.
		if second == nil || second["subtype"] != "error_during_execution" || second["is_error"] != true {
			t.Errorf("the interrupted query ended with %v, want error_during_execution", second)
		}
	})

	t.Run("embedded MCP server", func(t *testing.T) {
		srv := fp.New(t,
			fp.Turn{fp.ToolCall("c1", "mcp__calc__echo", `{"text":"ping"}`)},
			fp.Turn{fp.Text("echoed")},
		)
		out := runSessionScript(t, node, modules, bin, srv, "mcp")
		var res map[string]any
		called := false
		for _, m := range out {
			if m["test"] == "echo_called" && m["text"] == "ping" {
				called = true
			}
			if msg, ok := m["msg"].(map[string]any); ok && msg["type"] == "result" {
				res = msg
			}
		}
		if !called || res == nil || res["subtype"] != "success" || res["result"] != "echoed" {
			t.Fatalf("tool called %v, result %v: want the embedded tool run and a success", called, res)
		}
		var got string
		for _, m := range srv.Requests()[1].Messages {
			if m.ToolCallID == "c1" {
				got = m.Text()
			}
		}
		if got != "echo: ping" {
			t.Errorf("the model heard %q, want the embedded tool's answer", got)
		}
	})

	t.Run("deny with interrupt", func(t *testing.T) {
		srv := fp.New(t,
			fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"echo hi > hi.txt"}`)},
			fp.Turn{fp.Text("went on")},
		)
		out := runSessionScript(t, node, modules, bin, srv, "deny")
		var res map[string]any
		for _, m := range out {
			if msg, ok := m["msg"].(map[string]any); ok && msg["type"] == "result" {
				res = msg
			}
		}
		if res == nil || res["is_error"] != true || !strings.Contains(res["error"].(string), "stop at run_shell_command") {
			t.Fatalf("result %v, want the run ended by the denial", res)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("the provider got %d requests, want 1: the run should stop at the denial", n)
		}
	})
}

// runSessionScript runs session.mjs for scenario against srv and returns
// its output lines.
func runSessionScript(t *testing.T, node, modules, bin string, srv *fp.Server, scenario string) []map[string]any {
	t.Helper()
	run := scriptDir(t, modules, "sdk", "session.mjs")
	cfg := jsonText(t, map[string]any{
		"ply": bin, "cwd": t.TempDir(), "scenario": scenario,
		"env": map[string]string{
			"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL,
			"PLY_HOME": filepath.Join(t.TempDir(), "home"), "PLY_RETRY_DELAY_SCALE": "0.001",
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "session.mjs", cfg)
	cmd.Dir = run
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node session.mjs %s: %v\nstdout:\n%s\nstderr:\n%s", scenario, err, stdout.String(), stderr.String())
	}
	var out []map[string]any
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("script output line is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	if t.Failed() || len(out) == 0 {
		t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	return out
}
