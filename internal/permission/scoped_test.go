package permission

import (
	"slices"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// TestAllowAlwaysScopesDeletionToTheWorkspace: "allow always" for a
// command that deletes or overwrites remembers it only for paths inside
// the workspace, which checkpoints can restore; the dialog says so.
func TestAllowAlwaysScopesDeletionToTheWorkspace(t *testing.T) {
	root, outside := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, nil, nil, nil)
	c := shellCall(t, "rm -rf ./build")
	rules, desc := p.AlwaysScope(c)
	if !slices.Equal(rules, []string{"Bash(@workspace rm:*)"}) || !strings.Contains(desc, "inside the workspace") {
		t.Fatalf("scope of rm -rf ./build: %q %q", rules, desc)
	}
	p.AllowAlways(c)
	for cmd, want := range map[string]scheduler.Verdict{
		"rm -rf ./build":                 allowV,
		"rm src/main.go docs":            allowV,
		"rm -rf " + outside:              askV,
		"rm -rf ../outside":              askV,
		"rm -rf ~/x":                     askV,
		"rm -rf /":                       askV,
		"rm -rf .":                       askV, // the whole workspace
		"rm -rf src/outdir/target.txt":   askV, // through a link to outside
		"rm -rf .git":                    askV,
		"rm -rf build/*":                 askV, // a glob: not known statically
		"rm -rf $HOME":                   askV,
		"cd src && rm -rf ../../outside": askV,
		"cd .. && rm -rf outside":        askV,
		"rm --no-preserve-root -rf " + outside + "/x": askV,
	} {
		if v, reason := p.Check(t.Context(), shellCall(t, cmd)); v != want {
			t.Errorf("after allow always: %q = %s (%s), want %s", cmd, verdictName(v), reason, verdictName(want))
		}
	}
	if _, err := ParseRule("Bash(@workspace)"); err == nil {
		t.Error("Bash(@workspace) parsed")
	}
}

func TestScopedRulesForOverwritingPrograms(t *testing.T) {
	root, _ := testWorkspace(t)
	for _, tc := range []struct{ cmd, rule string }{
		{"mv a b", "Bash(@workspace mv:*)"},
		{"cp a b", "Bash(@workspace cp:*)"},
		{"dd if=a of=b", "Bash(@workspace dd:*)"},
		{"sed -i s/a/b/ f", "Bash(@workspace sed:*)"},
		{"git clean -fdx", "Bash(@workspace git clean:*)"},
		{"git reset --hard HEAD", "Bash(@workspace git reset:*)"},
		{"chmod -R 777 src", "Bash(@workspace chmod:*)"},
		{"make build", "Bash(make build:*)"},
		{"sudo rm -rf /tmp/x", "Bash(sudo rm -rf /tmp/x)"},
		{"xargs rm", "Bash(xargs rm)"},
		{"bash -c 'rm -rf x'", "Bash(bash -c 'rm -rf x')"},
	} {
		p := newPolicy(t, root, ModeDefault, nil, nil, nil)
		if rules, _ := p.AlwaysScope(shellCall(t, tc.cmd)); !slices.Equal(rules, []string{tc.rule}) {
			t.Errorf("%q: %q, want %q", tc.cmd, rules, tc.rule)
		}
	}
	p := newPolicy(t, root, ModeDefault, []string{"Bash(@workspace dd:*)", "Bash(@workspace cp:*)"}, nil, nil)
	for cmd, want := range map[string]scheduler.Verdict{
		"dd if=src/main.go of=docs/x":   allowV,
		"dd if=src/main.go of=/dev/sda": askV,
		"cp src/main.go docs/":          allowV,
		"cp src/main.go /etc/":          askV,
		"cp --target-directory=/etc x":  askV,
		"cp src/main.go docs/ > /tmp/x": askV,
	} {
		if v, reason := p.Check(t.Context(), shellCall(t, cmd)); v != want {
			t.Errorf("%q = %s (%s), want %s", cmd, verdictName(v), reason, verdictName(want))
		}
	}
}
