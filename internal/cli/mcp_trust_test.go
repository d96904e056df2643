package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// hintedServer is the mcpServers entry of the test server whose lookup
// claims to be read-only, trusted or not.
func hintedServer(t *testing.T, trust bool) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "env": map[string]string{mcpServerEnv: mcpHinted}, "trust": trust}
}

func hintedConfig(t *testing.T, trust bool) string {
	return mustJSON(map[string]any{"mcpServers": map[string]any{"kb": hintedServer(t, trust)}})
}

// mcpCalls is a model turn calling the server's read-only-hinted tool,
// reading one of its resources and listing them; then it ends.
func mcpCalls(t *testing.T) *fp.Server {
	return fp.New(t,
		fp.Turn{
			fp.ToolCall("look", "mcp__kb__lookup", `{"key":"colour"}`),
			fp.ToolCall("read", "read_mcp_resource", `{"server_name":"kb","uri":"kb://readme"}`),
			fp.ToolCall("list", "list_mcp_resources", `{}`),
		},
		fp.Turn{fp.Text("done")},
	)
}

// mcpRun runs one headless session with the calls of mcpCalls and
// returns what each call answered the model.
func mcpRun(t *testing.T, dir, home string, args ...string) map[string]string {
	t.Helper()
	srv := mcpCalls(t)
	r := runPlyHome(t, dir, home, srv, append([]string{"-p", "use the knowledge base"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	return toolOutputs(srv)
}

const (
	lookedUp   = "value of colour"
	readmeText = "colours and shapes"
	refused    = "needs the user's approval, and no one can approve it"
)

// A server's readOnlyHint is its own claim: it does not approve the
// server's calls, nor does reading one of its resources run unasked.
// Only the user's trust in the server, or a rule of theirs, does.
func TestMCPReadOnlyHintDoesNotApprove(t *testing.T) {
	t.Run("default mode asks", func(t *testing.T) {
		out := mcpRun(t, t.TempDir(), t.TempDir(), "--mcp-config", hintedConfig(t, false))
		if strings.Contains(out["look"], lookedUp) || !strings.Contains(out["look"], refused) {
			t.Errorf("the hinted tool answered %q, want it refused for want of approval", out["look"])
		}
		if strings.Contains(out["read"], readmeText) || !strings.Contains(out["read"], refused) {
			t.Errorf("reading a resource answered %q, want it refused for want of approval", out["read"])
		}
		if !strings.Contains(out["list"], "kb://readme") {
			t.Errorf("listing resources answered %q, want the list", out["list"])
		}
	})
	t.Run("plan mode refuses", func(t *testing.T) {
		out := mcpRun(t, t.TempDir(), t.TempDir(), "--approval-mode", "plan", "--mcp-config", hintedConfig(t, false))
		if strings.Contains(out["look"], lookedUp) || !strings.Contains(out["look"], "plan mode") {
			t.Errorf("the hinted tool answered %q in plan mode, want it refused", out["look"])
		}
		if strings.Contains(out["read"], readmeText) {
			t.Errorf("reading a resource ran in plan mode: %q", out["read"])
		}
	})
	t.Run("an allow rule approves", func(t *testing.T) {
		out := mcpRun(t, t.TempDir(), t.TempDir(), "--allowed-tools", "mcp__kb__lookup,read_mcp_resource", "--mcp-config", hintedConfig(t, false))
		if out["look"] != lookedUp || !strings.Contains(out["read"], readmeText) {
			t.Errorf("with allow rules: lookup %q, read %q; want both to run", out["look"], out["read"])
		}
	})
	t.Run("the user's trust approves", func(t *testing.T) {
		out := mcpRun(t, t.TempDir(), t.TempDir(), "--mcp-config", hintedConfig(t, true))
		if out["look"] != lookedUp || !strings.Contains(out["read"], readmeText) {
			t.Errorf("trusted: lookup %q, read %q; want both to run", out["look"], out["read"])
		}
	})
	t.Run("a trusted read-only tool runs in plan mode", func(t *testing.T) {
		out := mcpRun(t, t.TempDir(), t.TempDir(), "--approval-mode", "plan", "--mcp-config", hintedConfig(t, true))
		if out["look"] != lookedUp {
			t.Errorf("trusted in plan mode: lookup %q, want it to run", out["look"])
		}
	})
	t.Run("the user's settings file may trust", func(t *testing.T) {
		home := t.TempDir()
		writeJSON(t, filepath.Join(home, "settings.json"), map[string]any{"mcpServers": map[string]any{"kb": hintedServer(t, true)}})
		out := mcpRun(t, t.TempDir(), home)
		if out["look"] != lookedUp {
			t.Errorf("trusted in the user's settings: lookup %q, want it to run", out["look"])
		}
	})
	t.Run("a project's settings file may not", func(t *testing.T) {
		dir := t.TempDir()
		writeJSON(t, filepath.Join(dir, ".ply", "settings.json"), map[string]any{"mcpServers": map[string]any{"kb": hintedServer(t, true)}})
		out := mcpRun(t, dir, t.TempDir(), "--trust-workspace")
		if strings.Contains(out["look"], lookedUp) || !strings.Contains(out["look"], refused) {
			t.Errorf("trusted by the project's settings: lookup %q, want it refused", out["look"])
		}
		if strings.Contains(out["read"], readmeText) {
			t.Errorf("trusted by the project's settings: read %q, want it refused", out["read"])
		}
	})
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(mustJSON(v)), 0o600); err != nil {
		t.Fatal(err)
	}
}
