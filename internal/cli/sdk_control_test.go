package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// exitOf waits for ply's exit code after the SDK closed its input.
func (p *sdkPeer) exitOf(code <-chan int) int {
	p.t.Helper()
	p.in.Close()
	select {
	case c := <-code:
		return c
	case <-time.After(10 * time.Second):
		p.t.Fatal("ply did not exit when stdin closed")
		return -1
	}
}

// control sends a control request and returns its answer's body.
func (p *sdkPeer) control(id string, req map[string]any) map[string]any {
	p.t.Helper()
	p.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
	for {
		m := p.next("control_response", nil)
		r := m["response"].(map[string]any)
		if r["request_id"] == id {
			return r
		}
	}
}

// The SDK's resume and forkSession options pass --resume (and
// --fork-session) and send the prompt on stdin, never as -p.
func TestSDKResumeAndForkTakeThePromptFromStdin(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	const id = "0b5c8a36-2a43-4f7e-9d7a-6f1f3c1c9e01"
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")}, fp.Turn{fp.Text("three")})
	if r := runPlyHome(t, dir, home, srv, "--session-id", id, "-p", "first"); r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}

	p, code := startSDKHome(t, dir, home, srv, "--resume", id)
	p.send(userMsg("second"))
	res := p.next("result", nil)
	if res["subtype"] != "success" || res["result"] != "two" || res["session_id"] != id {
		t.Fatalf("resumed result %v", res)
	}
	if c := p.exitOf(code); c != 0 {
		t.Fatalf("resume: exit %d", c)
	}
	if got := len(srv.Requests()[1].Messages); got < 3 {
		t.Fatalf("the resumed request carries %d messages, want the first exchange and the new prompt", got)
	}

	p, code = startSDKHome(t, dir, home, srv, "--resume", id, "--fork-session")
	p.send(userMsg("third"))
	res = p.next("result", nil)
	if res["subtype"] != "success" || res["result"] != "three" {
		t.Fatalf("forked result %v", res)
	}
	if res["session_id"] == id || res["session_id"] == "" {
		t.Fatalf("the fork should run in a new session, got %v", res["session_id"])
	}
	if c := p.exitOf(code); c != 0 {
		t.Fatalf("fork: exit %d", c)
	}
	if got := len(srv.Requests()[2].Messages); got < 5 {
		t.Fatalf("the forked request carries %d messages, want both exchanges and the new prompt", got)
	}
}

// An interrupt ends the query with a subtype of the SDK's own result union
// (success, error_max_turns, error_during_execution).
func TestSDKInterruptSubtypeIsInTheSDKUnion(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"sleep 30"}`)})
	p, code := startSDK(t, dir, srv, "--approval-mode", "yolo")
	p.send(userMsg("wait"))
	time.Sleep(300 * time.Millisecond)
	p.control("int-1", map[string]any{"subtype": "interrupt"})
	res := p.next("result", nil)
	if res["subtype"] != "error_during_execution" || res["is_error"] != true {
		t.Fatalf("interrupted result %v, want error_during_execution", res)
	}
	p.exitOf(code)
}

// A can_use_tool deny with interrupt: true ends the run as a denial; the
// model is not asked again.
func TestSDKDenyWithInterruptStopsTheRun(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"echo hi > hi.txt"}`)},
		fp.Turn{fp.Text("went on")},
	)
	p, code := startSDK(t, dir, srv)
	p.send(userMsg("run it"))
	req := p.next("control_request", nil)
	p.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": req["request_id"],
		"response": map[string]any{"behavior": "deny", "message": "stop everything", "interrupt": true}}})
	res := p.next("result", nil)
	if res["is_error"] != true || res["subtype"] != "error_during_execution" || !strings.Contains(res["error"].(string), "stop everything") {
		t.Fatalf("result %v, want an error naming the denial", res)
	}
	if d, _ := res["permission_denials"].([]any); len(d) != 1 {
		t.Fatalf("permission_denials %v, want the denied call", res["permission_denials"])
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the provider got %d requests, want 1: the run should stop at the denial", n)
	}
	p.exitOf(code)
}

// The SDK's queries about the session get real answers, not "unsupported
// control request".
func TestSDKControlRequestsAnswered(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("hello there")}, fp.Turn{fp.Text("thought hard")})
	p, code := startSDK(t, dir, srv)
	p.send(userMsg("hi"))
	if res := p.next("result", nil); res["subtype"] != "success" {
		t.Fatalf("result %v", res)
	}
	if _, sent := srv.Requests()[0].Body["reasoning_effort"]; sent {
		t.Fatalf("reasoning_effort sent before any effort was set: %s", srv.Requests()[0].Raw)
	}
	ok := func(r map[string]any, subtype string) map[string]any {
		t.Helper()
		if r["subtype"] != "success" {
			t.Fatalf("%s answered %v", subtype, r)
		}
		body, _ := r["response"].(map[string]any)
		if body["subtype"] != subtype {
			t.Fatalf("%s answer body %v", subtype, body)
		}
		return body
	}
	cmds := ok(p.control("c1", map[string]any{"subtype": "supported_commands"}), "supported_commands")
	if _, isList := cmds["commands"].([]any); !isList {
		t.Fatalf("supported_commands %v: want a commands list", cmds)
	}
	mcp := ok(p.control("c2", map[string]any{"subtype": "mcp_server_status"}), "mcp_server_status")
	if _, isList := mcp["mcpServers"].([]any); !isList {
		t.Fatalf("mcp_server_status %v: want an mcpServers list", mcp)
	}
	cu := ok(p.control("c3", map[string]any{"subtype": "get_context_usage"}), "get_context_usage")
	cats, _ := cu["categories"].(map[string]any)
	if cats == nil || cats["system_prompt"].(float64) <= 0 || cats["tools"].(float64) <= 0 || cats["history"].(float64) <= 0 {
		t.Fatalf("get_context_usage %v: want tokens of the system prompt, tools and history", cu)
	}
	if cu["total_tokens"].(float64) < cats["history"].(float64) {
		t.Fatalf("get_context_usage total %v below its history", cu)
	}
	eff := ok(p.control("c4", map[string]any{"subtype": "set_effort", "effort": "high"}), "set_effort")
	if eff["effort"] != "high" || eff["applied"] != true {
		t.Fatalf("set_effort %v: want the tier applied", eff)
	}
	if r := p.control("c5", map[string]any{"subtype": "set_effort", "effort": "extreme"}); r["subtype"] != "error" {
		t.Fatalf("set_effort with an unknown tier answered %v", r)
	}
	models := ok(p.control("c6", map[string]any{"subtype": "get_available_models"}), "get_available_models")
	list, _ := models["models"].([]any)
	if len(list) == 0 || list[0].(map[string]any)["id"] != "m" {
		t.Fatalf("get_available_models %v: want the current model m", models)
	}
	usage := ok(p.control("c7", map[string]any{"subtype": "get_usage_info"}), "get_usage_info")
	if usage["queries"].(float64) != 1 {
		t.Fatalf("get_usage_info %v: want one query counted", usage)
	}
	cont := ok(p.control("c8", map[string]any{"subtype": "continue_last_turn"}), "continue_last_turn")
	if cont["accepted"] != false {
		t.Fatalf("continue_last_turn after a finished turn %v: want accepted false", cont)
	}
	// The effort set reaches the provider with the next query.
	p.send(userMsg("think"))
	if res := p.next("result", nil); res["subtype"] != "success" {
		t.Fatalf("result %v", res)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Body["reasoning_effort"] != "high" {
		t.Fatalf("the query after set_effort high: %d requests, last %s", len(reqs), reqs[len(reqs)-1].Raw)
	}
	p.exitOf(code)
}

// continue_last_turn goes on with a resumed session's interrupted turn,
// as --continue does, without a new user message.
func TestSDKContinueLastTurnResumesAnInterruptedTurn(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	const id = "5d0f9a1e-8c3b-4b7e-a2f4-0c6e2d9b7a11"
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"sleep 30"}`)},
		fp.Turn{fp.Text("finished after all")},
	)
	p, code := startSDKHome(t, dir, home, srv, "--session-id", id, "--approval-mode", "yolo")
	p.send(userMsg("wait"))
	time.Sleep(300 * time.Millisecond)
	p.control("int-1", map[string]any{"subtype": "interrupt"})
	p.next("result", nil)
	p.exitOf(code)

	p, code = startSDKHome(t, dir, home, srv, "--resume", id)
	r := p.control("c1", map[string]any{"subtype": "continue_last_turn"})
	body, _ := r["response"].(map[string]any)
	if body["accepted"] != true {
		t.Fatalf("continue_last_turn %v: want accepted", r)
	}
	res := p.next("result", nil)
	if res["subtype"] != "success" || res["result"] != "finished after all" {
		t.Fatalf("continued result %v", res)
	}
	p.exitOf(code)
}

// MCP servers in the SDK's initialize request are started by ply and
// their tools offered, as those of the settings are.
func TestSDKInitializeStartsMCPServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "mcp__kb__lookup", `{"key":"colour"}`)},
		fp.Turn{fp.Text("looked up")},
	)
	p, code := startSDK(t, t.TempDir(), srv, "--approval-mode", "yolo")
	r := p.control("init", map[string]any{"subtype": "initialize", "mcpServers": map[string]any{
		"kb": map[string]any{"command": exe, "env": map[string]string{mcpServerEnv: "1"}},
	}})
	if r["subtype"] != "success" {
		t.Fatalf("initialize answered %v", r)
	}
	p.send(userMsg("look it up"))
	init := p.next("system", nil)
	if !strings.Contains(mustJSON(init["mcp_servers"]), `"kb"`) || !strings.Contains(mustJSON(init["tools"]), "mcp__kb__lookup") {
		t.Fatalf("init message %v: want server kb and its tools", init)
	}
	if res := p.next("result", nil); res["subtype"] != "success" || res["result"] != "looked up" {
		t.Fatalf("result %v", res)
	}
	var out string
	for _, m := range srv.Requests()[1].Messages {
		if m.ToolCallID == "c1" {
			out = m.Text()
		}
	}
	if out != "value of colour" {
		t.Fatalf("the MCP tool answered %q, want the server's value", out)
	}
	st := p.control("st", map[string]any{"subtype": "mcp_server_status"})
	if !strings.Contains(mustJSON(st), `"name":"kb","status":"connected"`) {
		t.Fatalf("mcp_server_status %v: want kb connected", st)
	}
	p.exitOf(code)
}

// An MCP server embedded in the SDK's process (createSdkMcpServer) is
// reached through mcp_message round trips: ply sends the JSON-RPC
// message as a control request, the SDK answers with the server's reply.
func TestSDKEmbeddedMCPServer(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "mcp__calc__echo", `{"text":"ping"}`)},
		fp.Turn{fp.Text("echoed")},
	)
	p, code := startSDK(t, t.TempDir(), srv, "--approval-mode", "yolo")
	p.send(map[string]any{"type": "control_request", "request_id": "init", "request": map[string]any{
		"subtype": "initialize", "sdkMcpServers": map[string]any{"calc": map[string]any{"type": "sdk", "name": "calc"}}}})
	var methods []string
	// serve plays the embedded server until the message of type until.
	serve := func(until string) map[string]any {
		for {
			m := p.next("", nil)
			if m["type"] == until {
				return m
			}
			if m["type"] != "control_request" {
				continue
			}
			req := m["request"].(map[string]any)
			if req["subtype"] != "mcp_message" || req["server_name"] != "calc" {
				t.Fatalf("unexpected control request %v", m)
			}
			msg := req["message"].(map[string]any)
			method, _ := msg["method"].(string)
			methods = append(methods, method)
			var result any = map[string]any{}
			switch method {
			case "initialize":
				result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "calc", "version": "1"}}
			case "tools/list":
				result = map[string]any{"tools": []any{map[string]any{"name": "echo", "description": "echoes",
					"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}}}
			case "tools/call":
				args := msg["params"].(map[string]any)["arguments"].(map[string]any)
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + args["text"].(string)}}}
			}
			p.send(map[string]any{"type": "control_response", "response": map[string]any{
				"subtype": "success", "request_id": m["request_id"],
				"response": map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": result}}}})
		}
	}
	if r := serve("control_response")["response"].(map[string]any); r["subtype"] != "success" {
		t.Fatalf("initialize answered %v", r)
	}
	p.send(userMsg("echo ping"))
	if res := serve("result"); res["subtype"] != "success" || res["result"] != "echoed" {
		t.Fatalf("result %v", res)
	}
	var out string
	for _, m := range srv.Requests()[1].Messages {
		if m.ToolCallID == "c1" {
			out = m.Text()
		}
	}
	if out != "echo: ping" || !strings.Contains(strings.Join(methods, ","), "tools/call") {
		t.Fatalf("the embedded tool answered %q (methods %v), want its reply through mcp_message", out, methods)
	}
	p.exitOf(code)
}

// The SDK's agents option (initialize's "agents") defines subagents the
// model can start with the agent tool.
func TestSDKInitializeDefinesAgents(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("a1", "agent", `{"subagent_type":"reviewer","description":"review","prompt":"review the code"}`)},
		fp.Turn{fp.Text("no issues")},
		fp.Turn{fp.Text("the reviewer found no issues")},
	)
	p, code := startSDK(t, t.TempDir(), srv, "--approval-mode", "yolo")
	r := p.control("init", map[string]any{"subtype": "initialize", "agents": []any{map[string]any{
		"name": "reviewer", "description": "Reviews code for bugs", "systemPrompt": "You are a careful reviewer.",
		"tools": []string{"read_file"}, "level": "session"}}})
	if r["subtype"] != "success" {
		t.Fatalf("initialize answered %v", r)
	}
	p.send(userMsg("get a review"))
	init := p.next("system", nil)
	if !strings.Contains(mustJSON(init["agents"]), "reviewer") {
		t.Fatalf("init agents %v: want reviewer", init["agents"])
	}
	if res := p.next("result", nil); res["subtype"] != "success" {
		t.Fatalf("result %v", res)
	}
	sub := string(srv.Requests()[1].Raw)
	if !strings.Contains(sub, "You are a careful reviewer.") {
		t.Fatalf("the subagent's request lacks its system prompt:\n%.2000s", sub)
	}
	p.exitOf(code)
}
