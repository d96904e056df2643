package tui

import (
	"slices"
	"strings"
	"testing"
)

func TestConfigCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	c := &configurer{set: map[string]string{"approvalMode": `"plan"`}}
	h.m.cfg.Session = struct {
		bare
		Configurer
	}{bare{}, c}
	h.runCommand("/config")
	h.runCommand("/config set tools.shellOutputLimit 20000 --project")
	h.runCommand("/config set ui.theme light")
	h.runCommand("/config set ui.theme purple")
	h.runCommand("/config approvalMod")
	h.runCommand("/config ui.theme")
	h.runCommand("/config unset ui.theme")
	h.runCommand("/config unset ui.theme")
	h.runCommand("/config set")
	p := h.printed()
	for _, want := range []string{
		`approvalMode = "plan"  (/home/u/.ply/settings.json)`,
		"at their defaults: ui.theme, tools.shellOutputLimit",
		"tools.shellOutputLimit set to 20000 in your project settings; it takes effect when ply next starts",
		"ui.theme set to light in your user settings",
		"✗ /config: ui.theme is dark or light, not purple",
		"✗ /config: unknown setting approvalMod (did you mean approvalMode?)",
		`ui.theme: text` + "\n" + `  ui.theme = "light"`,
		"ui.theme removed from your user settings",
		"the user settings do not set ui.theme",
		"✗ /config lists the settings",
	} {
		if !strings.Contains(flat(p), flat(want)) { // long lines break between words
			t.Errorf("/config output lacks %q:\n%s", want, p)
		}
	}
	if !slices.Equal(c.where, []string{"project", "user"}) {
		t.Errorf("settings written to %v", c.where)
	}
	if h.m.cmds.theme != "light" {
		t.Errorf("ui.theme set to light left the theme %q", h.m.cmds.theme)
	}
}
