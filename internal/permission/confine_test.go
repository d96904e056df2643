package permission

import (
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
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
		v, _, confined := p.CheckConfined(t.Context(), shellCall(t, cmd))
		if confined != want || (want && v != scheduler.VerdictAllow) {
			t.Errorf("%q: verdict %v confined %v, want confined %v", cmd, v, confined, want)
		}
	}
	p.SetMode(ModeYOLO)
	if _, _, confined := p.CheckConfined(t.Context(), shellCall(t, "git status")); confined {
		t.Error("yolo confined a read-only command")
	}
}
