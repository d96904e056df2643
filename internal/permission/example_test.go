package permission_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// A rule is a tool name, by ply's name or an alias users of other agents
// know, optionally followed by a specifier in parentheses. Tool reports which
// of ply's tools the rule is about; a rule that does not parse is a
// *RuleError saying why.
func ExampleParseRule() {
	for _, text := range []string{
		"Bash(git *)",
		"Bash(npm run test:*)",
		"Read(.env)",
		"Edit(/src/**)",
		"WebFetch(domain:*.example.com)",
		"mcp__github",
		"Bash(git status && rm -rf x)",
	} {
		r, err := permission.ParseRule(text)
		var bad *permission.RuleError
		if errors.As(err, &bad) {
			fmt.Printf("%-30s does not parse\n", bad.Rule)
			continue
		}
		fmt.Printf("%-30s is about %s\n", r, r.Tool())
	}
	// Output:
	// Bash(git *)                    is about run_shell_command
	// Bash(npm run test:*)           is about run_shell_command
	// Read(.env)                     is about read_file
	// Edit(/src/**)                  is about edit
	// WebFetch(domain:*.example.com) is about web_fetch
	// mcp__github                    is about mcp__github
	// Bash(git status && rm -rf x)   does not parse
}

// Deny beats ask beats allow beats the approval mode's default. An allow rule
// covers a shell line only when every command in it is covered; a deny rule
// catches a line when any part of it matches, and a path rule reaches the
// shell as well as the file tools.
func ExampleNew() {
	root, err := os.MkdirTemp("", "ply-ws")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		fmt.Println(err)
		return
	}

	p, err := permission.New(permission.Config{
		Mode:      permission.ModeDefault,
		Workspace: ws,
		Settings: []permission.RuleSet{{
			Allow: []string{"Bash(git *)"},
			Ask:   []string{"Bash(git push *)"},
			Deny:  []string{"Read(.env)"},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	verdicts := map[scheduler.Verdict]string{
		scheduler.VerdictAllow: "allow", scheduler.VerdictAsk: "ask", scheduler.VerdictDeny: "deny",
	}
	check := func(t tools.Tool, what string, args map[string]any) {
		raw, err := json.Marshal(args)
		if err != nil {
			fmt.Println(err)
			return
		}
		c := &scheduler.Call{
			Request: scheduler.Request{CallID: "1", Name: t.Name(), Args: string(raw)},
			Tool:    t,
			Params:  raw,
		}
		v, _ := p.Check(context.Background(), c)
		fmt.Printf("%-5s %s %s\n", verdicts[v], t.Name(), what)
	}
	shell, read, edit := tools.NewShell(ws), tools.NewReadFile(ws), tools.NewEdit(ws)
	for _, cmd := range []string{"git log -3", "git push origin main", "git status && rm -rf build", "cat .env"} {
		check(shell, cmd, map[string]any{"command": cmd})
	}
	for _, name := range []string{".env", "main.go"} {
		check(read, name, map[string]any{"file_path": filepath.Join(root, name)})
	}
	change := map[string]any{"file_path": filepath.Join(root, "main.go"), "old_string": "a", "new_string": "b"}
	check(edit, "main.go", change)

	// Shift+Tab in the UI, or setPermissionMode from an SDK.
	if err := p.SetMode(permission.ModeAutoEdit); err != nil {
		fmt.Println(err)
		return
	}
	check(edit, "main.go (auto-edit)", change)
	// Output:
	// allow run_shell_command git log -3
	// ask   run_shell_command git push origin main
	// ask   run_shell_command git status && rm -rf build
	// deny  run_shell_command cat .env
	// deny  read_file .env
	// allow read_file main.go
	// ask   edit main.go
	// allow edit main.go (auto-edit)
}
