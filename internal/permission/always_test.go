package permission

import (
	"slices"
	"testing"
)

// TestAlwaysScope: the dialog's description of "allow always" names
// exactly the rules AllowAlways then adds.
func TestAlwaysScope(t *testing.T) {
	root, _ := testWorkspace(t)
	type args = map[string]any
	for _, tc := range []struct {
		tool  string
		args  args
		rules []string
		desc  string
	}{
		{ToolShell, args{"command": "git commit -m 'it works'"}, []string{"Bash(git commit:*)"}, "commands starting with `git commit`"},
		{ToolShell, args{"command": "npm run test:unit -- --watch && ./build.sh --fast"},
			[]string{"Bash(npm run test:unit:*)", "Bash(./build.sh:*)"}, "commands starting with `npm run test:unit` or `./build.sh`"},
		{ToolShell, args{"command": "'my tool' x"}, []string{"Bash('my tool':*)"}, "commands starting with `'my tool'`"},
		{ToolShell, args{"command": "make all"}, nil, ""},             // covered by a settings rule already
		{ToolShell, args{"command": "$(echo rm) x"}, nil, ""},         // words known only at run time
		{ToolShell, args{"command": "git push origin main"}, nil, ""}, // an ask rule holds over any allow
		{ToolEdit, args{"file_path": "README.md"}, []string{"edit"}, "every call of edit (any file)"},
		{"mcp__gh__create_issue", args{}, []string{"mcp__gh__create_issue"}, "every call of mcp__gh__create_issue"},
		{ToolWebFetch, args{"url": "https://Docs.Example.com./a?q=1", "prompt": "p"}, []string{"WebFetch(domain:docs.example.com)"}, "fetches from docs.example.com"},
		{ToolWebFetch, args{"url": "not a url", "prompt": "p"}, nil, ""},
	} {
		p := newPolicy(t, root, ModeDefault, []string{"Bash(make:*)"}, []string{"Bash(git push *)"}, nil)
		c := call(t, tc.tool, tc.args)
		rules, desc := p.AlwaysScope(c)
		if !slices.Equal(rules, tc.rules) || desc != tc.desc {
			t.Errorf("%s %v: scope %q %q, want %q %q", tc.tool, tc.args, rules, desc, tc.rules, tc.desc)
		}
		p.AllowAlways(c)
		if got := p.SessionRules(); !slices.Equal(got, tc.rules) && !(len(got) == 0 && len(tc.rules) == 0) {
			t.Errorf("%s %v: AllowAlways added %q, the dialog said %q", tc.tool, tc.args, got, tc.rules)
		}
	}
}
