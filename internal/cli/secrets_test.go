package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
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
	r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-y", "-p", "show the environment")
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

// TestCredentialsNeverPrinted: a provider that answers 401 echoing the
// key, and another secret of the environment, in its body: neither
// reaches stderr, stream-json or the log file.
func TestCredentialsNeverPrinted(t *testing.T) {
	const apiKey = "sk-e2e-secret-key-0123456789"
	const token = "ghp-env-token-abcdefghijkl"
	t.Setenv("GITHUB_TOKEN", token)
	body := `{"error":{"message":"Incorrect API key provided: ` + apiKey + ` (token ` + token + `)","type":"invalid_request_error","code":"invalid_api_key"}}`
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			// The 500 is retried, and the retry logged with the error.
			srv := fp.New(t, fp.Turn{fp.Status(500, body, nil)}, fp.Turn{fp.Status(401, body, nil)})
			dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
			r := runPlyWithEnv(t, dir, home, map[string]string{
				"OPENAI_API_KEY": apiKey, "OPENAI_BASE_URL": srv.URL, "OPENAI_MODEL": "m", "PLY_RETRY_DELAY_SCALE": "0.001",
			}, "--debug", "-o", format, "-p", "hello")
			if r.code == 0 {
				t.Fatalf("exit 0 on a 401; stderr:\n%s", r.stderr)
			}
			logs, _ := filepath.Glob(filepath.Join(home, "logs", "*.log"))
			var logText string
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				logText += string(b)
			}
			if !strings.Contains(logText, "retrying model request") || !strings.Contains(logText, "provided: [redacted]") {
				t.Errorf("the log does not hold the retried error, redacted:\n%s", logText)
			}
			if !strings.Contains(r.stdout+r.stderr, "Incorrect API key provided: [redacted]") {
				t.Errorf("the error is not reported, redacted:\nstdout:\n%s\nstderr:\n%s\nlog:\n%s", r.stdout, r.stderr, logText)
			}
			for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "log": logText} {
				for _, s := range []string{apiKey, token} {
					if strings.Contains(out, s) {
						t.Errorf("%s holds %q:\n%s", name, s, out)
					}
				}
			}
			t.Logf("stderr:\n%s\nlog:\n%s", r.stderr, logText)
		})
	}
}

// setupSecrets collects every credential ply holds: the key, the values
// of withheld variables, and configured credential headers.
func TestSetupSecretsCollectsCredentials(t *testing.T) {
	c := &config{
		apiKey: "flag-key-0123456789", keyEnv: "CORP_LLM",
		headers: map[string]string{"Authorization": "Bearer hdr-token-0123456789", "X-Title": "ply-agent-title", "X-Corp-Key": "corp-header-key-1"},
	}
	environ := []string{"CORP_LLM=corp-env-value-123", "PATH=/bin", "SHORT_TOKEN=abc", "LONG_PASSWORD=correct-horse-battery"}
	var stderr bytes.Buffer
	if err := setupSecrets(c, environ, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"flag-key-0123456789", "corp-env-value-123", "correct-horse-battery",
		"Bearer hdr-token-0123456789", "hdr-token-0123456789", "corp-header-key-1"} {
		if !slices.Contains(c.secrets, s) {
			t.Errorf("%q is not among the secrets %q", s, c.secrets)
		}
	}
	for _, s := range []string{"ply-agent-title", "abc", "/bin"} {
		if slices.Contains(c.secrets, s) {
			t.Errorf("%q would be redacted", s)
		}
	}
	if !slices.Equal(c.childEnv, []string{"PATH=/bin"}) {
		t.Errorf("childEnv = %q", c.childEnv)
	}
}
