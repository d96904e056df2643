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
// the client's permission, a prompt cancelled mid-stream, and
// session/load of that session in a second process. It skips where node
// or npm is missing or the package cannot be installed.
func TestACPNodeClient(t *testing.T) {
	if testing.Short() {
		t.Skip("installs @agentclientprotocol/sdk from npm and runs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH; install Node.js to run ply against @agentclientprotocol/sdk")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not on PATH; install it with Node.js to run ply against @agentclientprotocol/sdk")
	}
	modules := installNodePackage(t, npm, "@agentclientprotocol/sdk", acpSDKVersion)
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
	run := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "acp", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(run, "node_modules")); err != nil {
		t.Fatal(err)
	}
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
		First           struct {
			StopReason string
			Updates    []json.RawMessage
		}
		Second     struct{ StopReason string }
		Loaded     struct{ Updates []json.RawMessage }
		FirstExit  int
		SecondExit int
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("script output %q: %v", stdout, err)
	}
	if out.ProtocolVersion != 1 || !out.LoadSession || out.Mode != "default" || out.SessionID == "" {
		t.Errorf("initialize/session/new: %s", stdout)
	}
	if out.First.StopReason != "end_turn" || out.Second.StopReason != "cancelled" {
		t.Errorf("stop reasons %q, %q; want end_turn, cancelled", out.First.StopReason, out.Second.StopReason)
	}
	first := joinRaw(out.First.Updates)
	for _, want := range []string{`"asked":"e1"`, `"toolCallId":"r1"`, `"kind":"read"`, `"kind":"edit"`, `"type":"diff"`, `"status":"completed"`, `Fixed.`} {
		if !strings.Contains(first, want) {
			t.Errorf("first prompt's updates lack %s:\n%s", want, first)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "bye acp\n" {
		t.Errorf("file after the granted edit: %q", b)
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

// installNodePackage installs pkg@version once into the user's cache and
// returns its node_modules; it skips the test when npm cannot.
func installNodePackage(t *testing.T, npm, pkg, version string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "ply-test", "node-"+strings.NewReplacer("@", "", "/", "-").Replace(pkg)+"-"+version)
	modules := filepath.Join(root, "node_modules")
	has := func(modules string) bool {
		b, err := os.ReadFile(filepath.Join(modules, filepath.FromSlash(pkg), "package.json"))
		var p struct{ Version string }
		return err == nil && json.Unmarshal(b, &p) == nil && p.Version == version
	}
	if has(modules) {
		return modules
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		t.Skipf("cannot create the package cache: %v", err)
	}
	// A fresh directory renamed into place: an interrupted install never
	// looks like a good one.
	tmp, err := os.MkdirTemp(filepath.Dir(root), "install-")
	if err != nil {
		t.Skipf("cannot create the package cache: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"ply-node-test","private":true,"type":"module"}`+"\n"), 0o644); err != nil {
		t.Skipf("cannot write the package cache: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--silent",
		"--fetch-retries=2", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000", pkg+"@"+version)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install %s@%s failed (registry unreachable?): %v\n%s", pkg, version, err, out)
	}
	if !has(filepath.Join(tmp, "node_modules")) {
		t.Skipf("npm install %s@%s left no package behind", pkg, version)
	}
	if has(modules) {
		return modules
	}
	_ = os.RemoveAll(root)
	if err := os.Rename(tmp, root); err != nil && !has(modules) {
		t.Skipf("cannot move the package into its cache: %v", err)
	}
	return modules
}
