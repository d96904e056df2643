package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// qwenSDKVersion is the @qwen-code/sdk release the test drives ply with.
// It is pinned so that a new release cannot change the test under us;
// raise it deliberately and rerun.
const qwenSDKVersion = "0.1.14"

// TestQwenSDK runs the approval round of internal/cli's TestSDKProtocol
// with the real TypeScript SDK on the other end instead of a Go fake: node
// runs testdata/sdk/query.mjs, which calls query() with the built ply as
// pathToQwenExecutable. It skips, never fails, when node or npm is missing
// or the package cannot be installed, since those say nothing about ply.
func TestQwenSDK(t *testing.T) {
	t.Parallel()
	node, modules := nodeWith(t, "@qwen-code/sdk", qwenSDKVersion)
	bin := buildPly(t)

	dir := t.TempDir()
	denied := filepath.Join(dir, "denied.txt")
	srv := fp.New(t,
		// One reply with two calls that both need approval in default
		// mode: the SDK's callback denies the write and allows the shell
		// with its own command (updatedInput), which is what must run.
		fp.Turn{
			fp.ToolCall("w1", "write_file", jsonText(t, map[string]any{"file_path": denied, "content": "no"})),
			fp.ToolCall("s1", "run_shell_command", `{"command":"echo unsanitized > allowed.txt"}`),
		},
		fp.Turn{fp.Text("all done")},
	)

	// The script must sit beside a node_modules holding the SDK for its
	// bare import to resolve; a link to the shared install does that
	// without copying it.
	run := scriptDir(t, modules, "sdk", "query.mjs")
	cfg := jsonText(t, map[string]any{
		"ply": bin, "cwd": dir, "prompt": "write a file, then run a command",
		// The SDK merges these into its own environment for ply.
		"env": map[string]string{
			"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL,
			"PLY_HOME": filepath.Join(t.TempDir(), "home"), "PLY_RETRY_DELAY_SCALE": "0.001",
		},
	})

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "query.mjs", cfg)
	cmd.Dir = run
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	for _, line := range strings.Split(stderr.String(), "\n") {
		// The SDK logs the exact command line it spawned; keep it in
		// the verbose output, as it is what a protocol change shows in.
		if strings.Contains(line, "Spawning CLI") {
			t.Log(strings.TrimSpace(line))
		}
	}
	if runErr != nil {
		t.Fatalf("node query.mjs: %v\nstdout:\n%s\nstderr:\n%s", runErr, stdout.String(), stderr.String())
	}

	var msgs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("script output line is not JSON: %q", sc.Text())
		}
		msgs = append(msgs, m)
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
		t.Logf("messages the SDK yielded:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		t.FailNow()
	}
	if len(msgs) == 0 {
		fail("the SDK yielded no messages")
	}

	var asked []string
	assistants := 0
	var result map[string]any
	for _, m := range msgs {
		switch m["type"] {
		case "assistant":
			assistants++
		case "test_can_use_tool":
			asked = append(asked, m["tool_name"].(string))
		case "result":
			result = m
		}
	}
	if msgs[0]["type"] != "system" || msgs[0]["subtype"] != "init" {
		fail("the first message is %v, want system/init", msgs[0])
	}
	if assistants < 2 {
		fail("the SDK saw %d assistant messages, want the tool calls and the final text", assistants)
	}
	if strings.Join(asked, ",") != "write_file,run_shell_command" {
		fail("canUseTool was asked about %v, want write_file then run_shell_command", asked)
	}
	if result == nil || result["subtype"] != "success" || result["is_error"] != false || result["result"] != "all done" {
		fail("result %v, want a success with the final text", result)
	}
	if msgs[len(msgs)-1]["type"] != "test_session" || msgs[len(msgs)-2]["type"] != "result" {
		fail("the SDK's last message is %v, want the result", msgs[len(msgs)-2])
	}
	// The SDK picks the session id and passes it as --session-id, so that
	// it can resume the session later: every message must carry it.
	session := msgs[len(msgs)-1]["session_id"]
	for _, m := range msgs {
		if id, ok := m["session_id"]; ok && id != session {
			fail("message %v has session_id %v, want the SDK's %v", m, id, session)
		}
	}
	// The SDK types permission_denials as an array. ply lists only the
	// calls its own policy refused there, not those the SDK's callback
	// denied (the scheduler records those as cancelled), so its content
	// is not checked here.
	if _, ok := result["permission_denials"].([]any); !ok {
		fail("result permission_denials is %v, want an array", result["permission_denials"])
	}

	if _, err := os.Stat(denied); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied write ran (stat: %v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "allowed.txt")); strings.TrimSpace(string(b)) != "allowed" {
		t.Errorf("the callback's rewritten command did not run; allowed.txt holds %q", b)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the provider got %d requests, want 2", len(reqs))
	}
	var deniedOut string
	for _, m := range reqs[1].Messages {
		if m.ToolCallID == "w1" {
			deniedOut = m.Text()
		}
	}
	if !strings.Contains(deniedOut, "the test forbids writing files") {
		t.Errorf("the model should hear the SDK's denial reason, got %q", deniedOut)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

// jsonText is v as JSON text, for tool-call arguments and the script's
// argument.
func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
