package tui

import (
	"errors"
	"strings"
	"testing"
)

func TestThemeCommand(t *testing.T) {
	h := newHarness(t, nil, nil) // NO_COLOR
	var saved []string
	h.m.cfg.Session = struct {
		bare
		ThemeSaver
	}{bare{}, themeFunc(func(name string) error { saved = append(saved, name); return nil })}
	for _, s := range []string{"/theme", "/theme light", "/theme sepia"} {
		h.typeText(s)
		h.enter()
	}
	p := h.printed()
	for _, want := range []string{"theme: dark (themes: dark, light)", "theme set to light and saved in your settings; NO_COLOR is set", "✗ unknown theme sepia"} {
		if !strings.Contains(p, want) {
			t.Errorf("lacks %q:\n%s", want, p)
		}
	}
	if strings.Join(saved, ",") != "light" {
		t.Fatalf("saved %v", saved)
	}
	if h.m.st.user.Render("x") != "x" {
		t.Fatal("NO_COLOR: the light theme brought colour")
	}

	// With colour, the palettes differ, and a failed save still switches.
	h.m.cfg.NoColor = false
	h.m.cfg.Session = struct {
		bare
		ThemeSaver
	}{bare{}, themeFunc(func(string) error { return errors.New("read-only home") })}
	h.typeText("/theme light")
	h.enter()
	light := h.m.st.warn.Render("x")
	h.m.applyTheme("dark")
	if dark := h.m.st.warn.Render("x"); dark == light || !strings.Contains(light, "x") {
		t.Fatalf("light %q and dark %q warn styles", light, dark)
	}
	if !strings.Contains(h.printed(), "theme set to light for this session (not saved: read-only home)") {
		t.Fatal(h.printed())
	}
	// The theme from the settings applies at start.
	h2 := newHarness(t, nil, nil)
	h2.m.cfg.NoColor = false
	h2.m.applyTheme("light")
	if h2.m.st.warn.Render("x") != light {
		t.Fatal("the settings' theme did not apply")
	}
}
