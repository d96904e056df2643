package permission

import (
	"strings"
	"testing"
)

// MayAllow sees the allow rules of every source that could let a call run
// unasked, matched by tool as a call would be (Edit's path rules cover
// write_file).
func TestMayAllow(t *testing.T) {
	p := newPolicy(t, t.TempDir(), ModeDefault, []string{"Edit(src/**)", "Bash(make:*)"}, []string{"WebFetch"}, nil)
	for name, want := range map[string]bool{
		ToolEdit: true, ToolWriteFile: true, ToolShell: true,
		ToolWebFetch: false, "save_memory": false,
	} {
		if got := p.MayAllow(name); got != want {
			t.Errorf("MayAllow(%s) = %v, want %v", name, got, want)
		}
	}
	if err := p.Grant("skill s", []string{"WebFetch(domain:go.dev)"}); err != nil {
		t.Fatal(err)
	}
	if !p.MayAllow(ToolWebFetch) {
		t.Error("a granted rule is not seen")
	}
}

// A withheld tool is disabled, with the reason given.
func TestWithhold(t *testing.T) {
	p := newPolicy(t, t.TempDir(), ModeYOLO, nil, nil, nil)
	p.Withhold(ToolEdit, "edit cannot run here")
	if ok, why := p.Enabled(ToolEdit); ok || !strings.Contains(why, "cannot run here") {
		t.Errorf("Enabled(edit) = %v, %q", ok, why)
	}
	if p.Offered(ToolEdit) || !p.Offered(ToolReadFile) {
		t.Error("Offered does not follow Withhold")
	}
}
