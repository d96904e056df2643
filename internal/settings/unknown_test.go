package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnknownKeys(t *testing.T) {
	home := t.TempDir()
	src := `{
		"$schema": "x",
		"approvalMod": "yolo", // a typo
		"model": {"name": "m", "maxToolCallPerTurn": 5},
		"modelProviders": {"local": {"baseURL": "http://h", "model": "m"}},
		"hooks": {"PreToolUse": [{"command": "true", "anything": 1}]},
		"general": {"vimMode": true},
	}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, files, err := Load(home, "", false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range files[0].Unknown {
		got = append(got, u.Key+"→"+u.Near)
	}
	want := "approvalMod→approvalMode general→ model.maxToolCallPerTurn→maxToolCallsPerTurn modelProviders.local.baseURL→baseUrl"
	if strings.Join(got, " ") != want {
		t.Fatalf("unknown keys:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if s := files[0].Unknown[0].String(); !strings.Contains(s, `unknown setting "approvalMod" is ignored (did you mean "approvalMode"?)`) || !strings.HasPrefix(s, filepath.Join(home, "settings.json")) {
		t.Fatalf("warning %q", s)
	}
}

// A model given as a plain name has no keys to check.
func TestUnknownKeysPlainModel(t *testing.T) {
	if u := unknownKeys("f", []byte(`{"model": "gpt", "ui": {"theme": "dark"}}`)); len(u) != 0 {
		t.Fatalf("%+v", u)
	}
}
