package permission

import (
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// TestConfined checks which allowed shell calls the policy marks as
// allowed only because they read: those, and no others, run under the
// read-only profile.
func TestConfined(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, []string{"Bash(make test)"}, nil, nil)
	var _ scheduler.ConfiningPolicy = p
	for cmd, want := range map[string]bool{
		"git status":            true, // read-only: the mode allows it
		"cat README.md | wc -l": true,
		"make test":             false, // a rule allows it
		"rm -rf build":          false, // asks
	} {
		v, _, level := p.CheckConfined(t.Context(), shellCall(t, cmd))
		if confined := level == tools.ConfineReadOnly; confined != want || (want && v != scheduler.VerdictAllow) {
			t.Errorf("%q: verdict %v confined %v, want confined %v", cmd, v, confined, want)
		}
	}
	p.SetMode(ModeYOLO)
	if _, _, level := p.CheckConfined(t.Context(), shellCall(t, "git status")); level != tools.Unconfined {
		t.Error("yolo confined a read-only command")
	}
}

// TestReadOnlyShellNeedsProfile checks that a command judged read-only
// runs unasked only where the kernel can hold it to reading, or where the
// user accepted running such commands without that: otherwise it asks,
// and the reason says why and how to opt in. A policy told nothing about
// the kernel assumes the worst.
func TestReadOnlyShellNeedsProfile(t *testing.T) {
	root, _ := testWorkspace(t)
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	noLandlock := func() error { return errors.New("the kernel was built without Landlock") }
	for _, c := range []struct {
		name     string
		cfg      Config
		want     scheduler.Verdict
		confined bool
	}{
		{"profile", Config{ReadOnlyProfile: func() error { return nil }}, scheduler.VerdictAllow, true},
		{"no profile", Config{ReadOnlyProfile: noLandlock}, scheduler.VerdictAsk, false},
		{"unknown", Config{}, scheduler.VerdictAsk, false},
		{"no profile, opted in", Config{ReadOnlyProfile: noLandlock, AllowUnconfined: true}, scheduler.VerdictAllow, true},
	} {
		c.cfg.Mode, c.cfg.Workspace = ModeDefault, ws
		p, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		v, reason, level := p.CheckConfined(t.Context(), shellCall(t, "git status"))
		if confined := level == tools.ConfineReadOnly; v != c.want || confined != c.confined {
			t.Errorf("%s: verdict %v confined %v (%s), want %v %v", c.name, v, level, reason, c.want, c.confined)
		}
		if v == scheduler.VerdictAsk && (!strings.Contains(reason, "--allow-unsandboxed") || !strings.Contains(reason, "allowUnsandboxed")) {
			t.Errorf("%s: the reason does not say how to opt in: %s", c.name, reason)
		}
		if c.name == "no profile" && !strings.Contains(reason, "without Landlock") {
			t.Errorf("%s: the reason does not say why: %s", c.name, reason)
		}
		// What a rule or yolo allows does not rest on the profile.
		p.SetMode(ModeYOLO)
		if v, _, _ := p.CheckConfined(t.Context(), shellCall(t, "git status")); v != scheduler.VerdictAllow {
			t.Errorf("%s: yolo asked", c.name)
		}
	}
}
