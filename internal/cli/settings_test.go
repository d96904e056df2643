package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

func writeFile(t *testing.T, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

func TestBrokenSettingsStopPly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".ply", "settings.json"), "{\n  // comments are fine\n  \"model\" \"m\"\n}", 0o644)
	// The project's file is read only in a trusted folder (see
	// trust_test.go for an untrusted one's broken file).
	r := runPly(t, dir, nil, "", "--trust-workspace", "-y", "-p", "x")
	if r.code != 52 || !strings.Contains(r.stderr, "settings.json:3:") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
}

func TestSettingsRulesAndHooks(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "deny-rm.sh")
	// A PreToolUse hook that denies any command mentioning rm, and a Stop
	// hook that asks for one more round, once.
	writeFile(t, hook, `#!/bin/bash
input=$(cat)
case "$input" in *'"rm '*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm here"}}';; esac
exit 0
`, 0o755)
	stop := filepath.Join(dir, "stop.sh")
	writeFile(t, stop, `#!/bin/bash
input=$(cat)
case "$input" in *'"stop_hook_active":true'*) exit 0;; esac
echo "also write the summary" >&2
exit 2
`, 0o755)
	writeFile(t, filepath.Join(dir, ".ply", "settings.json"), `{
		"approvalMode": "yolo",
		"permissions": {"deny": ["Read(secret.txt)"]},
		"hooks": {
			"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "`+hook+`"}]}],
			"Stop": [{"hooks": [{"type": "command", "command": "`+stop+`"}]}],
		},
	}`, 0o644)
	writeFile(t, filepath.Join(dir, "secret.txt"), "hunter2\n", 0o644)
	srv := fp.New(t,
		fp.Turn{
			fp.ToolCall("r1", "read_file", `{"file_path":"secret.txt"}`),
			fp.ToolCall("s1", "run_shell_command", `{"command":"rm -rf build"}`),
		},
		fp.Turn{fp.Text("first answer")},
		fp.Turn{fp.Text("summary written")},
	)
	r := runPly(t, dir, srv, "", "--trust-workspace", "-p", "clean up")
	if r.code != 0 || r.stdout != "summary written\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (the Stop hook continues once)", len(reqs))
	}
	var readOut, shellOut string
	for _, m := range reqs[1].Messages {
		switch m.ToolCallID {
		case "r1":
			readOut = m.Text()
		case "s1":
			shellOut = m.Text()
		}
	}
	if strings.Contains(readOut, "hunter2") || !strings.Contains(readOut, "Read(secret.txt)") {
		t.Errorf("the deny rule should refuse the read: %q", readOut)
	}
	if !strings.Contains(shellOut, "no rm here") {
		t.Errorf("the hook should deny the command: %q", shellOut)
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Text(), "also write the summary") {
		t.Errorf("the Stop hook's reason should be the next prompt: %+v", last)
	}
}

func TestNamedProviderFromSettings(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("from dashscope")})
	writeFile(t, filepath.Join(dir, ".ply", "settings.json"), `{
		"provider": "dashscope",
		"modelProviders": {
			"dashscope": {"authType": "openai", "baseUrl": "`+srv.URL+`", "apiKeyEnv": "DASHSCOPE_API_KEY",
				"model": "qwen3-coder-plus", "maxOutputTokens": 4096, "headers": {"X-DashScope-SSE": "enable"}},
		},
	}`, 0o644)
	env := map[string]string{"DASHSCOPE_API_KEY": "ds-key", "PLY_HOME": t.TempDir()}
	var out, errb strings.Builder
	code := Main(t.Context(), []string{"--trust-workspace", "-y", "-p", "hi"}, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir})
	if code != 0 || out.String() != "from dashscope\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out.String(), errb.String())
	}
	req := srv.Requests()[0]
	if req.Model != "qwen3-coder-plus" || req.Header.Get("Authorization") != "Bearer ds-key" ||
		req.Header.Get("X-DashScope-SSE") != "enable" || req.Body["max_tokens"] != float64(4096) {
		t.Fatalf("request model %q auth %q headers %v body max_tokens %v", req.Model, req.Header.Get("Authorization"), req.Header, req.Body["max_tokens"])
	}
	// An unknown name is a one-line error.
	code = Main(t.Context(), []string{"--trust-workspace", "--provider", "nope", "-y", "-p", "hi"}, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir})
	if code != 42 || !strings.Contains(errb.String(), `unknown provider "nope"`) {
		t.Fatalf("exit %d stderr %q", code, errb.String())
	}
}
