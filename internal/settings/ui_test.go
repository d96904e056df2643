package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveTheme(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	for _, tc := range []struct{ before, theme, want string }{
		{"", "light", "{\n  \"ui\": {\"theme\": \"light\"}\n}\n"},
		{"{}", "dark", "{\n  \"ui\": {\"theme\":\"dark\"}\n}"},
		{"{\n  // my model\n  \"model\": \"m\"\n}\n", "light", "{\n  \"ui\": {\"theme\":\"light\"},\n  // my model\n  \"model\": \"m\"\n}\n"},
		{"{\"model\": \"m\", \"ui\": {\"theme\": \"light\", \"x\": 1} /* keep */}", "dark", "{\"model\": \"m\", \"ui\": {\"theme\":\"dark\",\"x\":1} /* keep */}"},
	} {
		if tc.before != "" {
			if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
				t.Fatal(err)
			}
		} else {
			os.Remove(path)
		}
		if err := SaveTheme(path, tc.theme); err != nil {
			t.Fatalf("%q: %v", tc.before, err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != tc.want {
			t.Errorf("%q → %q, want %q", tc.before, got, tc.want)
		}
		f, err := loadFile(path)
		if err != nil || f.Settings.UI.Theme != tc.theme {
			t.Errorf("%q: read back %+v, %v", tc.before, f.Settings.UI, err)
		}
	}
	os.Chmod(path, 0o600)
	if err := SaveTheme(path, "light"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", fi.Mode())
	}
	os.WriteFile(path, []byte(`{"ui": 3}`), 0o600)
	if err := SaveTheme(path, "dark"); err == nil || !strings.Contains(err.Error(), "not an object") {
		t.Fatalf("err = %v", err)
	}
	os.WriteFile(path, []byte(`{"a": `), 0o600)
	if err := SaveTheme(path, "dark"); err == nil {
		t.Fatal("a broken file was overwritten")
	}
}

// FuzzSetUI checks that setting the theme in any settings file that
// parses gives a file that parses, with the theme set and every other
// top-level key kept.
func FuzzSetUI(f *testing.F) {
	for _, s := range []string{"", "{}", `{"a": 1, "ui": {"theme": "x"}}`, "{\n// c\n\"ui\": {},\n}", `{"ui": null}`, `{"a": [1, {"ui": 2}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var before map[string]any
		if len(strings.TrimSpace(string(StripJSONC(src)))) > 0 && DecodeJSONC("f", src, &before) != nil {
			return
		}
		out, err := setUI("f", src, "light")
		if err != nil {
			return // refused: left alone
		}
		var after struct {
			UI UI `json:"ui"`
		}
		var keys map[string]any
		if err := DecodeJSONC("f", out, &after); err != nil || after.UI.Theme != "light" {
			t.Fatalf("%q → %q: %v %+v", src, out, err, after)
		}
		if err := DecodeJSONC("f", out, &keys); err != nil {
			t.Fatal(err)
		}
		for k := range before {
			if _, ok := keys[k]; !ok {
				t.Fatalf("%q → %q lost %q", src, out, k)
			}
		}
	})
}
