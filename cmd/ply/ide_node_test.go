package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/ide/idetest"
)

// qwenCodeVersion is the Qwen Code CLI release whose IDE client the fake
// companion is checked against; pinned, raised deliberately.
const qwenCodeVersion = "0.15.10"

// TestQwenCodeReadsTheFakeCompanion points Qwen Code's own CLI at the
// fake companion extension that ply's IDE tests use: the real client
// finds its discovery file, connects with its token, receives the
// editor's context on the listening stream and sends it to the model.
// That shows the fake speaks the extensions' protocol, so ply's tests
// against it stand for the real extension. It skips, never fails, when
// node, npm or the package is missing.
func TestQwenCodeReadsTheFakeCompanion(t *testing.T) {
	t.Parallel()
	node, modules := nodeWith(t, "@qwen-code/qwen-code", qwenCodeVersion)
	dir, home := t.TempDir(), t.TempDir()
	qhome := filepath.Join(home, ".qwen")
	comp := idetest.New(t)
	comp.WriteDiscovery(t, filepath.Join(qhome, "ide", strconv.Itoa(comp.Port)+".lock"), []string{dir}, os.Getpid())
	active := filepath.Join(dir, "main.go")
	comp.SetContext([]map[string]any{
		idetest.File(active, 2, true, 12, "func answer() int { return 42 }"),
		idetest.File(filepath.Join(dir, "other.go"), 1, false, 0, ""),
	})
	if err := os.WriteFile(filepath.Join(qhome, "settings.json"),
		[]byte(`{"ide": {"enabled": true, "hasSeenNudge": true}, "security": {"auth": {"selectedType": "openai"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The CLI may send more than the prompt's request (background
	// tasks); each gets an answer.
	turns := make([]fp.Turn, 64)
	for i := range turns {
		turns[i] = fp.Turn{fp.Text("ok")}
	}
	srv := fp.New(t, turns...)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(modules, "@qwen-code", "qwen-code", "cli.js"),
		"-p", "what is selected?", "--auth-type", "openai", "--model", "m")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "QWEN_HOME=" + qhome,
		"TERM_PROGRAM=vscode", "QWEN_CODE_IDE_SERVER_PORT=" + strconv.Itoa(comp.Port),
		"QWEN_CODE_IDE_WORKSPACE_PATH=" + dir,
		"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + srv.URL, "OPENAI_MODEL=m",
		"NO_COLOR=1", "CI=1",
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The prompt's request is what matters; the CLI is stopped after it,
	// whatever it goes on doing.
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for len(srv.Requests()) == 0 {
		if ctx.Err() != nil {
			t.Fatalf("Qwen Code sent no request to the model in time; output:\n%s", &out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var sent string
	for _, m := range srv.Requests()[0].Messages {
		sent += m.Text() + "\n"
	}
	for _, want := range []string{active, "func answer() int { return 42 }", "other.go"} {
		if !strings.Contains(sent, want) {
			t.Fatalf("Qwen Code did not send the editor's context (%q missing); it sent:\n%s\noutput:\n%s", want, sent, &out)
		}
	}
}
