package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// acpSDKVersion is the @agentclientprotocol/sdk release the ACP test
// drives ply with; pinned so that a release cannot change the test.
const acpSDKVersion = "2.4.0"

// TestACPNodeClient drives `ply --acp` with the official TypeScript ACP
// client (testdata/acp/client.mjs): a prompt that reads and edits with
// the client's permission through the client's file system, a prompt cancelled mid-stream, and
// session/load of that session in a second process. It skips where node
// or npm is missing or the package cannot be installed.
func TestACPNodeClient(t *testing.T) {
	t.Parallel()
	node, modules := nodeWith(t, "@agentclientprotocol/sdk", acpSDKVersion)
	bin := buildPly(t)

	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("hello acp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("r1", "read_file", jsonText(t, map[string]any{"file_path": file}))},
		fp.Turn{fp.ToolCall("e1", "edit", jsonText(t, map[string]any{"file_path": file, "old_string": "hello", "new_string": "bye"}))},
		fp.Turn{fp.Text("Fixed.")},
		fp.Turn{fp.Text("working"), fp.Stall(time.Minute), fp.Text(" never")},
	)
	run := scriptDir(t, modules, "acp", "client.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", bin, dir)
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=k", "OPENAI_MODEL=m", "OPENAI_BASE_URL="+srv.URL,
		"PLY_HOME="+filepath.Join(t.TempDir(), "home"), "PLY_RETRY_DELAY_SCALE=0.001")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr.String())
	}
	var out struct {
		ProtocolVersion int
		LoadSession     bool
		SessionID       string `json:"sessionId"`
		Mode            string
		Model           string
		Options         []string
		First           struct {
			StopReason string
			Updates    []json.RawMessage
		}
		Second     struct{ StopReason string }
		Loaded     struct{ Updates []json.RawMessage }
		FirstExit  int
		SecondExit int
		Files      struct {
			Reads  []string
			Writes []struct{ Path, Content string }
		}
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("script output %q: %v", stdout, err)
	}
	if out.ProtocolVersion != 1 || !out.LoadSession || out.Mode != "default" || out.SessionID == "" {
		t.Errorf("initialize/session/new: %s", stdout)
	}
	if out.Model != "m" || strings.Join(out.Options, ",") != "mode,model,effort" {
		t.Errorf("session/new models and config options: %q, %q", out.Model, out.Options)
	}
	if out.First.StopReason != "end_turn" || out.Second.StopReason != "cancelled" {
		t.Errorf("stop reasons %q, %q; want end_turn, cancelled", out.First.StopReason, out.Second.StopReason)
	}
	first := joinRaw(out.First.Updates)
	for _, want := range []string{`"sessionUpdate":"available_commands_update"`, `"name":"compress"`, `"asked":"e1"`, `"toolCallId":"r1"`, `"kind":"read"`, `"kind":"edit"`, `"type":"diff"`, `"status":"completed"`, `Fixed.`} {
		if !strings.Contains(first, want) {
			t.Errorf("first prompt's updates lack %s:\n%s", want, first)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "bye acp\n" {
		t.Errorf("file after the granted edit: %q", b)
	}
	// The client offered its file system: the read and the edit went
	// through it.
	if len(out.Files.Reads) == 0 || out.Files.Reads[0] != file {
		t.Errorf("fs/read_text_file requests: %q", out.Files.Reads)
	}
	if w := out.Files.Writes; len(w) != 1 || w[0].Path != file || w[0].Content != "bye acp\n" {
		t.Errorf("fs/write_text_file requests: %+v", w)
	}
	loaded := joinRaw(out.Loaded.Updates)
	for _, want := range []string{`"sessionUpdate":"user_message_chunk"`, `fix notes.txt`, `"toolCallId":"e1"`, `Fixed.`} {
		if !strings.Contains(loaded, want) {
			t.Errorf("session/load replay lacks %s:\n%s", want, loaded)
		}
	}
	if out.FirstExit != 0 || out.SecondExit != 0 {
		t.Errorf("ply exited %d and %d\nstderr:\n%s", out.FirstExit, out.SecondExit, stderr.String())
	}
}

func joinRaw(rs []json.RawMessage) string {
	var b strings.Builder
	for _, r := range rs {
		b.Write(r)
		b.WriteByte('\n')
	}
	return b.String()
}
