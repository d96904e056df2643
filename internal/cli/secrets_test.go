package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// toolResults returns the tool results the last request carried, by call.
func toolResults(srv *fp.Server) map[string]string {
	out := map[string]string{}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return out
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

// TestChildEnvironment: a shell command and a hook see none of the
// secrets in ply's environment, the user's shellEnvironment adjusts that,
// and a project's shellEnvironment is ignored with a warning.
func TestChildEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-process-secret-0001")
	t.Setenv("MY_TOKEN", "token-the-user-included")
	t.Setenv("OTHER_SECRET", "secret-nobody-included")
	t.Setenv("PLAINX", "plain-but-excluded")
	t.Setenv("PLAINY", "plain-kept")
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	hookOut := filepath.Join(t.TempDir(), "hook.env")
	writeFile(t, filepath.Join(home, "settings.json"), `{
		"shellEnvironment": {"include": ["MY_TOKEN"], "exclude": ["PLAINX"], "set": {"SETV": "from-settings"}},
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "env > `+hookOut+`"}]}]}
	}`, 0o644)
	writeFile(t, filepath.Join(dir, ".ply", "settings.json"), `{"shellEnvironment": {"include": ["*"]}}`, 0o644)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", mustJSON(map[string]string{
			"command": "printenv OPENAI_API_KEY; echo tok=$MY_TOKEN other=$OTHER_SECRET set=$SETV x=$PLAINX y=$PLAINY"}))},
		fp.Turn{fp.Text("done")},
	)
	r := runPlyHome(t, dir, home, srv, "-y", "-p", "show the environment")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	got := toolResults(srv)["s1"]
	if !strings.Contains(got, "Output: tok=token-the-user-included other= set=from-settings x= y=plain-kept\n") {
		t.Errorf("shell command's environment:\n%s", got)
	}
	if !strings.Contains(r.stderr, "shellEnvironment is ignored") {
		t.Errorf("no warning about the project's shellEnvironment:\n%s", r.stderr)
	}
	env, err := os.ReadFile(hookOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"sk-process-secret-0001", "secret-nobody-included", "PLAINX="} {
		if strings.Contains(string(env), bad) {
			t.Errorf("the hook saw %q", bad)
		}
	}
	if !strings.Contains(string(env), "SETV=from-settings") || !strings.Contains(string(env), "MY_TOKEN=token-the-user-included") {
		t.Errorf("the hook's environment lacks the user's adjustments:\n%s", env)
	}
}

// A provider named in settings with its own key variable: that variable
// is withheld although its name looks harmless.
func TestChildEnvironmentWithholdsTheProvidersKeyVariable(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command": "echo corp=$CORP_LLM"}`)},
		fp.Turn{fp.Text("done")},
	)
	writeFile(t, filepath.Join(home, "settings.json"), `{"provider": "corp", "modelProviders": {"corp": {"authType": "openai", "baseUrl": "`+srv.URL+`", "apiKeyEnv": "CORP_LLM", "model": "m"}}}`, 0o644)
	t.Setenv("CORP_LLM", "corp-key-value-123")
	r := runPlyWithEnv(t, dir, home, map[string]string{"CORP_LLM": "corp-key-value-123"}, "-y", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if got := toolResults(srv)["s1"]; !strings.Contains(got, "Output: corp=\n") {
		t.Errorf("the provider's key variable reached the command:\n%s", got)
	}
}

// runPlyWithEnv runs ply with exactly env (and PLY_HOME) as what it reads
// through Getenv.
func runPlyWithEnv(t *testing.T, dir, home string, env map[string]string, args ...string) result {
	t.Helper()
	env["PLY_HOME"] = home
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, IO{
		StdinIsTTY: true, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir,
	})
	return result{out.String(), errb.String(), code}
}
