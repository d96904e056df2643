package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readServers(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	f, err := loadFile(path)
	if err != nil {
		t.Fatalf("the edited file does not load: %v", err)
	}
	return f.Settings.MCPServers
}

func TestSetMCPServerKeepsTheRestOfTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	orig := `{
  // my model
  "model": "qwen3-coder-plus",
  "mcpServers": {
    "old": {"command": "old-server"}, // keep me
  },
  "permissions": {"allow": ["Bash(git *)"],},
}
`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetMCPServer(path, "new", json.RawMessage(`{"command":"new-server","args":["-v"]}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	for _, keep := range []string{"// my model", "// keep me", `"Bash(git *)"`} {
		if !strings.Contains(string(got), keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
	servers := readServers(t, path)
	if len(servers) != 2 || !strings.Contains(string(servers["new"]), "new-server") || !strings.Contains(string(servers["old"]), "old-server") {
		t.Errorf("servers = %s", servers)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want the original 0600", fi.Mode().Perm())
	}
	if err := SetMCPServer(path, "new", json.RawMessage(`{"command":"x"}`)); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("adding a name twice: %v", err)
	}

	removed, err := RemoveMCPServer(path, "old")
	if err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	servers = readServers(t, path)
	if len(servers) != 1 || servers["new"] == nil {
		t.Errorf("after remove: %s", servers)
	}
	removed, err = RemoveMCPServer(path, "new")
	if err != nil || !removed {
		t.Fatalf("remove last: %v %v", removed, err)
	}
	if s := readServers(t, path); len(s) != 0 {
		t.Errorf("after removing all: %s", s)
	}
	if removed, err := RemoveMCPServer(path, "nope"); err != nil || removed {
		t.Errorf("removing a missing server: %v %v", removed, err)
	}
	got, _ = os.ReadFile(path)
	if !strings.Contains(string(got), "// my model") {
		t.Errorf("lost the comment:\n%s", got)
	}
}

func TestSetMCPServerNewFiles(t *testing.T) {
	for name, orig := range map[string]*string{
		"missing":   nil,
		"empty":     ptr(""),
		"comment":   ptr("// nothing yet\n"),
		"emptyobj":  ptr("{}"),
		"noservers": ptr(`{"model": "m"}`),
		"emptysrv":  ptr(`{"mcpServers": {} }`),
		"lastcomma": ptr(`{"mcpServers": {"a": {"command": "a"},}}`),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "settings.json")
			if orig != nil {
				_ = os.MkdirAll(filepath.Dir(path), 0o700)
				if err := os.WriteFile(path, []byte(*orig), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := SetMCPServer(path, "s", json.RawMessage(`{"url":"http://x"}`)); err != nil {
				t.Fatal(err)
			}
			if s := readServers(t, path); !strings.Contains(string(s["s"]), "http://x") {
				b, _ := os.ReadFile(path)
				t.Errorf("servers = %s\nfile:\n%s", s, b)
			}
			if removed, err := RemoveMCPServer(path, "s"); err != nil || !removed {
				t.Fatalf("remove: %v %v", removed, err)
			}
			if s := readServers(t, path); s["s"] != nil {
				t.Errorf("still there: %s", s)
			}
		})
	}
}

func TestSetMCPServerRefusesBrokenFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	broken := `{"model": "m",,}`
	_ = os.WriteFile(path, []byte(broken), 0o644)
	if err := SetMCPServer(path, "s", json.RawMessage(`{}`)); err == nil {
		t.Error("edited a file that does not parse")
	}
	if b, _ := os.ReadFile(path); string(b) != broken {
		t.Errorf("the broken file was changed: %s", b)
	}
	_ = os.WriteFile(path, []byte(`{"mcpServers": []}`), 0o644)
	if err := SetMCPServer(path, "s", json.RawMessage(`{}`)); err == nil {
		t.Error("edited a file whose mcpServers is not an object")
	}
}

func ptr(s string) *string { return &s }

func FuzzSetMCPServer(f *testing.F) {
	for _, s := range []string{"", "{}", `{"mcpServers":{"a":{}}}`, "// c\n{\"a\":1,}", `{"mcpServers":{"s":1,"t":2,}}`, `{"x":"}"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		before, berr := loadFile(path)
		if err := SetMCPServer(path, "fz", json.RawMessage(`{"command":"c"}`)); err != nil {
			return
		}
		if berr != nil && len(strings.TrimSpace(string(StripJSONC([]byte(src))))) > 0 {
			t.Fatalf("edited a file that did not load (%v)", berr)
		}
		after, err := loadFile(path)
		if err != nil {
			b, _ := os.ReadFile(path)
			t.Fatalf("the edited file does not load: %v\n%s", err, b)
		}
		if after.Settings.MCPServers["fz"] == nil {
			t.Fatal("the server is missing")
		}
		for k := range before.Settings.MCPServers {
			if after.Settings.MCPServers[k] == nil {
				t.Fatalf("lost server %q", k)
			}
		}
		if _, err := RemoveMCPServer(path, "fz"); err != nil {
			t.Fatal(err)
		}
		again, err := loadFile(path)
		if err != nil || again.Settings.MCPServers["fz"] != nil || len(again.Settings.MCPServers) != len(before.Settings.MCPServers) {
			b, _ := os.ReadFile(path)
			t.Fatalf("after remove: %v %v\n%s", err, again.Settings.MCPServers, b)
		}
	})
}
