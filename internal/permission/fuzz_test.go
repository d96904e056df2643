package permission

import (
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// FuzzParseRule checks that no rule text panics the parser or, once
// parsed, the matchers, and that a parsed rule's text parses again to the
// same tool.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"Bash(git *)", "Bash(npm run test:*)", "Bash(git status)", `Bash(echo "a b" 'c' \*)`,
		"Read(.env)", "Read(**/*.key)", "Edit(/src/**)", "Edit(//etc/**)", "Read(~/.ssh/**)",
		"WebFetch(domain:example.com)", "WebFetch(domain:*.example.com)", "mcp__gh", "mcp__gh__*",
		"mcp__gh__issue", "ReadFileTool", "Bash(", "Bash())", "(x)", "Read({a,b}/[c-d]*)", "Bash(ls*)",
		"Bash(* * *)", "Read(~)", "Read(//)", "Bash(:*)", "Bash(a:*:*)",
	} {
		f.Add(s, "git status && rm -rf $HOME", "src/../.env")
	}
	root := f.TempDir()
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		f.Fatal(err)
	}
	p, err := New(Config{Workspace: ws, HomeDir: root})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text, command, path string) {
		r, err := ParseRule(text)
		if err != nil {
			if _, ok := err.(*RuleError); !ok {
				t.Fatalf("ParseRule(%q) error %T is not a *RuleError", text, err)
			}
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again.Tool() != r.Tool() {
			t.Fatalf("%q parsed, but its String %q gives %v, %v", text, r.String(), again.Tool(), err)
		}
		for _, name := range []string{r.Tool(), ToolShell, ToolReadFile, ToolEdit, ToolWebFetch} {
			ci := &callInfo{name: name, argsOK: true, args: callArgs{Command: command, FilePath: path, URL: path}}
			rules := []sourced{{r, "fuzz"}}
			p.catch(rules, ci)
			p.permit(rules, ci)
		}
	})
}
