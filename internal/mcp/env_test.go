package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stdio server gets ply's environment without secrets, except those its
// own configuration names: in its "env" map or its "envVars" list.
func TestStdioServerEnvWithholdsSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-mcp-test-secret")
	t.Setenv("GITHUB_TOKEN", "ghp-named-by-the-config")
	t.Setenv("PLY_TEST_PLAIN", "plain-value")
	dir := t.TempDir()
	bare := stdioServer(t, "bare", "stdio", "PLY_MCP_TEST_ENVFILE", filepath.Join(dir, "bare.env"))
	named := stdioServer(t, "named", "stdio", "PLY_MCP_TEST_ENVFILE", filepath.Join(dir, "named.env"), "EXPLICIT_SECRET", "from-env-map")
	named.EnvVars = []string{"GITHUB_TOKEN"}
	_, _, fails := startTools(t, map[string]ServerConfig{"bare": bare, "named": named})
	if len(fails) != 0 {
		t.Fatalf("failures: %v", fails)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	got := read("bare.env")
	if strings.Contains(got, "sk-mcp-test-secret") || strings.Contains(got, "ghp-named") || !strings.Contains(got, "PLY_TEST_PLAIN=plain-value") {
		t.Errorf("bare server's environment:\n%s", got)
	}
	got = read("named.env")
	if strings.Contains(got, "sk-mcp-test-secret") || !strings.Contains(got, "GITHUB_TOKEN=ghp-named-by-the-config") || !strings.Contains(got, "EXPLICIT_SECRET=from-env-map") {
		t.Errorf("named server's environment:\n%s", got)
	}
}

func TestParseEnvVars(t *testing.T) {
	servers, err := parseServers(map[string]json.RawMessage{
		"a": json.RawMessage(`{"command": "x", "envVars": ["GITHUB_TOKEN"]}`),
		"b": json.RawMessage(`{"command": "x", "env_vars": ["B_KEY"]}`),
		"c": json.RawMessage(`{"command": "x", "envVars": ["BAD=NAME"]}`),
	}, func(string) (string, bool) { return "", false })
	if got := servers["a"].EnvVars; len(got) != 1 || got[0] != "GITHUB_TOKEN" {
		t.Errorf("envVars = %v", got)
	}
	if got := servers["b"].EnvVars; len(got) != 1 || got[0] != "B_KEY" {
		t.Errorf("env_vars = %v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "mcpServers.c.envVars") {
		t.Errorf("bad name: %v", err)
	}
}
