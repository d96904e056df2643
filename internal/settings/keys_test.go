package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeysListPlainSettings(t *testing.T) {
	got := map[string]Key{}
	for _, k := range Keys() {
		got[k.Name] = k
	}
	for name, kind := range map[string]string{
		"approvalMode": "text", "model.name": "text", "model.maxToolCallsPerTurn": "whole number",
		"checkpointing.enabled": "true or false", "ui.theme": "text", "tools.shellOutputLimit": "whole number",
		"webFetch.allowPrivate": "list", "allowUnsandboxed": "true or false",
	} {
		if got[name].Kind != kind {
			t.Errorf("Keys()[%s] = %+v, want kind %q", name, got[name], kind)
		}
	}
	for _, name := range []string{"allowUnsandboxed", "webFetch.allowPrivate", "tools.webSearch.provider", "shellEnvironment.include"} {
		if !got[name].UserOnly {
			t.Errorf("%s is not user-only", name)
		}
	}
	for name := range got {
		if strings.HasPrefix(name, "permissions") || strings.HasPrefix(name, "hooks") || strings.HasPrefix(name, "modelProviders") {
			t.Errorf("Keys lists %s, which has its own command", name)
		}
	}
	if _, err := LookupKey("approvalMod"); err == nil || !strings.Contains(err.Error(), `did you mean approvalMode`) {
		t.Errorf("LookupKey(approvalMod) = %v", err)
	}
}

func TestKeyParse(t *testing.T) {
	for _, tc := range []struct {
		key, in, want string
	}{
		{"approvalMode", "auto-edit", `"auto-edit"`},
		{"approvalMode", `"plan"`, `"plan"`},
		{"checkpointing.enabled", "off", "false"},
		{"tools.shellOutputLimit", "20000", "20000"},
		{"webFetch.allowPrivate", "127.0.0.1, 10.0.0.0/8", `["127.0.0.1","10.0.0.0/8"]`},
		{"webFetch.allowPrivate", `["a"]`, `["a"]`},
	} {
		k, err := LookupKey(tc.key)
		if err != nil {
			t.Fatal(err)
		}
		got, err := k.Parse(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s.Parse(%q) = %s, %v; want %s", tc.key, tc.in, got, err, tc.want)
		}
	}
	k, _ := LookupKey("tools.shellOutputLimit")
	if _, err := k.Parse("lots"); err == nil || !strings.Contains(err.Error(), `tools.shellOutputLimit takes a whole number, not "lots"`) {
		t.Errorf("a bad number: %v", err)
	}
}

func TestSetKeyKeepsTheRestOfTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	src := `{
  // my model
  "model": "qwen3-coder-plus",
  "ui": {"theme": "light"}, // comment kept
}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	steps := []struct{ key, value string }{
		{"approvalMode", `"auto-edit"`},
		{"ui.theme", `"dark"`},
		{"checkpointing.retentionDays", "7"},
		{"model.maxToolCallsPerTurn", "50"},
		{"model.name", `"qwen3-max"`},
	}
	for _, s := range steps {
		if err := SetKey(path, s.key, []byte(s.value)); err != nil {
			t.Fatalf("SetKey(%s): %v", s.key, err)
		}
	}
	out, _ := os.ReadFile(path)
	for _, want := range []string{"// my model", "// comment kept"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the edit lost %q:\n%s", want, out)
		}
	}
	var s Settings
	if err := DecodeJSONC(path, out, &s); err != nil {
		t.Fatalf("the file no longer loads: %v\n%s", err, out)
	}
	if s.ApprovalMode != "auto-edit" || s.UI.Theme != "dark" || s.Checkpointing.Retention() != 7 ||
		s.Model.MaxToolCallsPerTurn != 50 || s.Model.Name != "qwen3-max" {
		t.Fatalf("after the edits: %+v\n%s", s, out)
	}
	for _, key := range []string{"model.name", "checkpointing.retentionDays"} {
		if v, ok := ValueIn(path, key); !ok {
			t.Errorf("ValueIn(%s) = %s, %v", key, v, ok)
		}
	}
	if ok, err := UnsetKey(path, "checkpointing.retentionDays"); !ok || err != nil {
		t.Fatalf("UnsetKey = %v, %v", ok, err)
	}
	if ok, err := UnsetKey(path, "checkpointing.retentionDays"); ok || err != nil {
		t.Fatalf("UnsetKey of an unset key = %v, %v", ok, err)
	}
	out, _ = os.ReadFile(path)
	if err := DecodeJSONC(path, out, &s); err != nil || strings.Contains(string(out), "retentionDays") {
		t.Fatalf("after unset: %v\n%s", err, out)
	}
	// A value of the wrong type for the key is refused and nothing written.
	if err := SetKey(path, "ui.theme", []byte("5")); err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("a number for ui.theme: %v", err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(out) {
		t.Fatalf("a refused edit changed the file:\n%s", again)
	}
}

func TestSetKeyNewFileAndPlainModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir", "settings.json")
	if err := SetKey(path, "model.effort", []byte(`"high"`)); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(path)
	var s Settings
	if err := DecodeJSONC(path, out, &s); err != nil || s.Model.Effort != "high" {
		t.Fatalf("%v %+v\n%s", err, s, out)
	}
	plain := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(plain, []byte(`{"model": "m1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetKey(plain, "model.effort", []byte(`"low"`)); err != nil {
		t.Fatal(err)
	}
	out, _ = os.ReadFile(plain)
	s = Settings{}
	if err := DecodeJSONC(plain, out, &s); err != nil || s.Model.Name != "m1" || s.Model.Effort != "low" {
		t.Fatalf("%v %+v\n%s", err, s, out)
	}
	if ok, err := UnsetKey(plain, "model.name"); !ok || err != nil {
		t.Fatal(ok, err)
	}
}

func FuzzSetKey(f *testing.F) {
	f.Add(`{"model": "m", "ui": {"theme": "light"}}`, "ui.theme", `"dark"`)
	f.Add(`{/* c */ "a": 1,}`, "model.name", `"x"`)
	f.Add(``, "checkpointing.enabled", `false`)
	f.Fuzz(func(t *testing.T, src, key, value string) {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := SetKey(path, key, []byte(value)); err != nil {
			if got, _ := os.ReadFile(path); string(got) != src {
				t.Fatalf("a failed edit changed the file")
			}
			return
		}
		out, _ := os.ReadFile(path)
		var s Settings
		if err := DecodeJSONC(path, out, &s); err != nil {
			t.Fatalf("SetKey wrote a file that does not load: %v\n%s", err, out)
		}
	})
}
