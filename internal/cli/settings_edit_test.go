package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /config's session side: a setting is checked, written to the right
// file with the rest kept, applied now where it can be, and listed with
// its file.
func TestSetSettingWritesAndApplies(t *testing.T) {
	c := doctorSession(t, map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1"},
		"{\n  // mine\n  \"ui\": {\"theme\": \"light\"}\n}\n")
	user := c.SettingsFile("user")
	note, err := c.SetSetting("approvalMode", "auto-edit", "user")
	if err != nil || note != "this session uses it now" || c.Mode() != "auto-edit" {
		t.Fatalf("SetSetting(approvalMode) = %q, %v; mode %s", note, err, c.Mode())
	}
	if note, err := c.SetSetting("tools.shellOutputLimit", "20000", "user"); err != nil || !strings.Contains(note, "next starts") {
		t.Fatalf("SetSetting(tools.shellOutputLimit) = %q, %v", note, err)
	}
	src, _ := os.ReadFile(user)
	for _, want := range []string{"// mine", `"approvalMode": "auto-edit"`, `"shellOutputLimit": 20000`, `"theme": "light"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the user's file lacks %q:\n%s", want, src)
		}
	}
	found := 0
	for _, s := range c.ConfigSettings() {
		switch s.Name {
		case "approvalMode", "tools.shellOutputLimit", "ui.theme":
			if s.From != user || s.Value == "" {
				t.Errorf("ConfigSettings: %+v", s)
			}
			found++
		}
	}
	if found != 3 {
		t.Errorf("ConfigSettings listed %d of the 3 settings set", found)
	}
	for _, tc := range []struct{ name, value, where, want string }{
		{"approvalMode", "sometimes", "user", "sometimes"},
		{"approvalMod", "plan", "user", "did you mean approvalMode"},
		{"tools.shellOutputLimit", "lots", "user", "takes a whole number"},
		{"approvalMode", "plan", "project", "not trusted"},
		{"allowUnsandboxed", "true", "project", "read from your own settings only"},
		{"permissions.allow", "x", "user", "unknown setting"},
	} {
		if _, err := c.SetSetting(tc.name, tc.value, tc.where); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetSetting(%s, %s, %s) = %v, want an error saying %q", tc.name, tc.value, tc.where, err, tc.want)
		}
	}
	if after, _ := os.ReadFile(user); string(after) != string(src) {
		t.Errorf("a refused setting changed the file:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(c.SettingsFile("project")), "settings.json")); err == nil {
		t.Errorf("a refused project setting created the project's file")
	}
	if ok, err := c.UnsetSetting("tools.shellOutputLimit", "user"); !ok || err != nil {
		t.Fatalf("UnsetSetting = %v, %v", ok, err)
	}
}
