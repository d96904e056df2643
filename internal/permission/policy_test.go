package permission

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

const (
	allowV = scheduler.VerdictAllow
	askV   = scheduler.VerdictAsk
	denyV  = scheduler.VerdictDeny
)

type args = map[string]any

func TestCheckTable(t *testing.T) {
	root, outside := testWorkspace(t)
	sh := func(cmd string) args { return args{"command": cmd} }
	file := func(p string) args { return args{"file_path": p} }
	read := args{"file_path": "src/main.go"}
	edit := args{"file_path": "src/main.go", "old_string": "x", "new_string": "y"}
	url := func(u string) args { return args{"url": u, "prompt": "summarise"} }

	tests := []struct {
		name             string
		mode             Mode
		tool             string
		args             args
		allow, ask, deny []string
		want             scheduler.Verdict
		reason           string // a substring of the reason, if given
	}{
		// plan: read and search only.
		{name: "plan read", mode: ModePlan, tool: ToolReadFile, args: read, want: allowV},
		{name: "plan grep", mode: ModePlan, tool: ToolGrep, args: args{"pattern": "x"}, want: allowV},
		{name: "plan glob", mode: ModePlan, tool: ToolGlob, args: args{"pattern": "*.go"}, want: allowV},
		{name: "plan fetch", mode: ModePlan, tool: ToolWebFetch, args: url("https://go.dev"), want: askV, reason: "https://go.dev"},
		{name: "plan think", mode: ModePlan, tool: ToolTodoWrite, args: args{}, want: allowV},
		{name: "plan edit", mode: ModePlan, tool: ToolEdit, args: edit, want: denyV, reason: "plan mode"},
		{name: "plan write", mode: ModePlan, tool: ToolWriteFile, args: file("new.txt"), want: denyV, reason: ToolExitPlanMode},
		{name: "plan delete", mode: ModePlan, tool: "delete_file", args: file("README.md"), want: denyV},
		// A command default mode runs unasked (read-only, confined) runs in
		// plan mode too: planning needs ls and git status.
		{name: "plan read-only shell", mode: ModePlan, tool: ToolShell, args: sh("git status"), want: allowV, reason: "only reads"},
		{name: "plan ls", mode: ModePlan, tool: ToolShell, args: sh("ls -la src"), want: allowV},
		{name: "plan read-only shell in background", mode: ModePlan, tool: ToolShell, args: args{"command": "ls", "is_background": true}, want: denyV, reason: "plan mode"},
		{name: "plan read-only shell asked by rule", mode: ModePlan, tool: ToolShell, args: sh("ls"), ask: []string{"Bash(ls)"}, want: askV},
		{name: "plan read-only shell denied by rule", mode: ModePlan, tool: ToolShell, args: sh("ls"), deny: []string{"Bash(ls)"}, want: denyV},
		{name: "plan shell", mode: ModePlan, tool: ToolShell, args: sh("rm -rf x"), want: denyV},
		{name: "plan mcp", mode: ModePlan, tool: "mcp__gh__create_issue", args: args{}, want: denyV},
		{name: "plan exit", mode: ModePlan, tool: ToolExitPlanMode, args: args{"plan": "p"}, want: askV, reason: "plan"},
		{name: "plan exit allowed by rule", mode: ModePlan, tool: ToolExitPlanMode, args: args{}, allow: []string{"ExitPlanMode"}, want: allowV},
		{name: "plan beats allow rule", mode: ModePlan, tool: ToolEdit, args: edit, allow: []string{"Edit"}, want: denyV, reason: "plan mode"},
		{name: "plan shell beats allow rule", mode: ModePlan, tool: ToolShell, args: sh("npm test"), allow: []string{"Bash(npm test)"}, want: denyV},
		{name: "plan read denied by rule", mode: ModePlan, tool: ToolReadFile, args: file(".env"), deny: []string{"Read(.env)"}, want: denyV, reason: "Read(.env) from settings"},

		// default: reads and read-only commands run; the rest asks.
		{name: "default read", mode: ModeDefault, tool: ToolReadFile, args: read, want: allowV},
		{name: "default list", mode: ModeDefault, tool: ToolListDirectory, args: args{"path": "src"}, want: allowV},
		{name: "default think", mode: ModeDefault, tool: ToolTodoWrite, args: args{}, want: allowV},
		{name: "default edit", mode: ModeDefault, tool: ToolEdit, args: edit, want: askV, reason: "asks before tools that edit files"},
		{name: "default write", mode: ModeDefault, tool: ToolWriteFile, args: file("new.txt"), want: askV},
		{name: "default delete", mode: ModeDefault, tool: "delete_file", args: file("README.md"), want: askV},
		{name: "default mcp", mode: ModeDefault, tool: "mcp__gh__create_issue", args: args{}, want: askV},
		{name: "default git status", mode: ModeDefault, tool: ToolShell, args: sh("git status"), want: allowV, reason: "only reads"},
		{name: "default pipeline read-only", mode: ModeDefault, tool: ToolShell, args: sh("ls -la | grep foo"), want: allowV},
		{name: "default npm test", mode: ModeDefault, tool: ToolShell, args: sh("npm test"), want: askV},
		{name: "default chained rm", mode: ModeDefault, tool: ToolShell, args: sh("git status && rm -rf x"), want: askV},
		{name: "default read-only in background", mode: ModeDefault, tool: ToolShell, args: args{"command": "git status", "is_background": true}, want: askV},
		{name: "default redirect to file", mode: ModeDefault, tool: ToolShell, args: sh("git log > log.txt"), want: askV},

		// shell allow rules.
		{name: "Bash(git *) allows git push", mode: ModeDefault, tool: ToolShell, args: sh("git push origin main"), allow: []string{"Bash(git *)"}, want: allowV, reason: "Bash(git *) from settings"},
		{name: "Bash(git *) allows bare git", mode: ModeDefault, tool: ToolShell, args: sh("git"), allow: []string{"Bash(git *)"}, want: allowV},
		{name: "Bash(git *) does not cover && rm", mode: ModeDefault, tool: ToolShell, args: sh("git status && rm -rf x"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) does not cover gitk", mode: ModeDefault, tool: ToolShell, args: sh("gitk --all"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) does not cover ; rm", mode: ModeDefault, tool: ToolShell, args: sh("git push; rm -rf x"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) does not cover $(...)", mode: ModeDefault, tool: ToolShell, args: sh("git commit -m $(rm -rf x)"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) does not cover env", mode: ModeDefault, tool: ToolShell, args: sh("GIT_DIR=/tmp/x git push"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) does not cover PATH=", mode: ModeDefault, tool: ToolShell, args: sh("PATH=/tmp/evil; git push"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) does not cover export PATH", mode: ModeDefault, tool: ToolShell, args: sh("export PATH=/tmp/evil; git push"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) does not cover > file", mode: ModeDefault, tool: ToolShell, args: sh("git push > out.txt"), allow: []string{"Bash(git *)"}, want: askV},
		{name: "Bash(git *) covers 2>&1", mode: ModeDefault, tool: ToolShell, args: sh("git push 2>&1 >/dev/null"), allow: []string{"Bash(git *)"}, want: allowV},
		{name: "two allow rules cover a chain", mode: ModeDefault, tool: ToolShell, args: sh("git add . && git commit -m 'fix it'"), allow: []string{"Bash(git add:*)", "Bash(git commit:*)"}, want: allowV},
		{name: "read-only part needs no rule", mode: ModeDefault, tool: ToolShell, args: sh("cd src && npm test"), allow: []string{"Bash(npm test)"}, want: allowV},
		{name: ":* prefix", mode: ModeDefault, tool: ToolShell, args: sh("npm run test:unit -- --watch"), allow: []string{"Bash(npm run test:*)"}, want: askV},
		{name: ":* prefix exact words", mode: ModeDefault, tool: ToolShell, args: sh("npm run test --watch"), allow: []string{"Bash(npm run test:*)"}, want: allowV},
		{name: ":* prefix other script", mode: ModeDefault, tool: ToolShell, args: sh("npm run build"), allow: []string{"Bash(npm run test:*)"}, want: askV},
		{name: "exact rule", mode: ModeDefault, tool: ToolShell, args: sh("git commit"), allow: []string{"Bash(git commit)"}, want: allowV},
		{name: "exact rule, extra args", mode: ModeDefault, tool: ToolShell, args: sh("git commit -m x"), allow: []string{"Bash(git commit)"}, want: askV},
		{name: "quoted words are words", mode: ModeDefault, tool: ToolShell, args: sh(`"git" 'commit'`), allow: []string{"Bash(git commit)"}, want: allowV},
		{name: "bare Bash allows all", mode: ModeDefault, tool: ToolShell, args: sh("rm -rf x"), allow: []string{"Bash"}, want: allowV},
		{name: "allowed-tools alias", mode: ModeDefault, tool: ToolShell, args: sh("make"), allow: []string{"ShellTool(make)"}, want: allowV},

		// shell deny rules catch any part.
		{name: "deny rm", mode: ModeDefault, tool: ToolShell, args: sh("rm -rf x"), deny: []string{"Bash(rm *)"}, want: denyV, reason: "denied by rule Bash(rm *) from settings"},
		{name: "deny rm in a chain", mode: ModeDefault, tool: ToolShell, args: sh("git status && rm -rf x"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny beats allow", mode: ModeDefault, tool: ToolShell, args: sh("rm -rf x"), allow: []string{"Bash"}, deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny through sudo", mode: ModeDefault, tool: ToolShell, args: sh("sudo -u root rm -rf /"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny through a path", mode: ModeDefault, tool: ToolShell, args: sh("/bin/rm -rf /"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny with $HOME", mode: ModeDefault, tool: ToolShell, args: sh("rm -rf $HOME"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny in $(...)", mode: ModeDefault, tool: ToolShell, args: sh("echo $(rm -rf /)"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny in sh -c", mode: ModeDefault, tool: ToolShell, args: sh("bash -c 'cd / && rm -rf *'"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny in find -exec", mode: ModeDefault, tool: ToolShell, args: sh(`find . -name '*.o' -exec rm {} \;`), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny through xargs", mode: ModeDefault, tool: ToolShell, args: sh("ls | xargs rm"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny unparsable", mode: ModeDefault, tool: ToolShell, args: sh("rm -rf / 'unterminated"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "deny spares others", mode: ModeDefault, tool: ToolShell, args: sh("git status"), deny: []string{"Bash(rm *)"}, want: allowV},
		{name: "exclude-style deny", mode: ModeDefault, tool: ToolShell, args: sh("git push --force"), deny: []string{"Bash(git push --force:*)"}, want: denyV},

		// ask rules beat allow rules and the mode.
		{name: "ask beats allow", mode: ModeDefault, tool: ToolShell, args: sh("git push origin"), allow: []string{"Bash(git *)"}, ask: []string{"Bash(git push:*)"}, want: askV, reason: "Bash(git push:*) from settings"},
		{name: "ask beats read-only", mode: ModeDefault, tool: ToolShell, args: sh("git status"), ask: []string{"Bash(git status)"}, want: askV},
		{name: "ask beats yolo", mode: ModeYOLO, tool: ToolShell, args: sh("git push"), ask: []string{"Bash(git push:*)"}, want: askV},
		{name: "deny beats ask", mode: ModeDefault, tool: ToolShell, args: sh("git push"), ask: []string{"Bash(git push:*)"}, deny: []string{"Bash(git push)"}, want: denyV},

		// path rules.
		{name: "Edit(/src/**) allows src", mode: ModeDefault, tool: ToolEdit, args: edit, allow: []string{"Edit(/src/**)"}, want: allowV},
		{name: "Edit(/src/**) covers write_file", mode: ModeDefault, tool: ToolWriteFile, args: file("src/new.go"), allow: []string{"Edit(/src/**)"}, want: allowV},
		{name: "Edit(/src/**) not README", mode: ModeDefault, tool: ToolEdit, args: file("README.md"), allow: []string{"Edit(/src/**)"}, want: askV},
		{name: "Edit(/src/**) not via ..", mode: ModeDefault, tool: ToolEdit, args: file("src/../README.md"), allow: []string{"Edit(/src/**)"}, want: askV},
		{name: "Edit(/src/**) not via link out", mode: ModeDefault, tool: ToolEdit, args: file("src/out.txt"), allow: []string{"Edit(/src/**)"}, want: askV},
		{name: "Edit(/src/**) not via dangling link", mode: ModeDefault, tool: ToolWriteFile, args: file("src/dangling.txt"), allow: []string{"Edit(/src/**)"}, want: askV},
		{name: "Read(.env) any depth", mode: ModeDefault, tool: ToolReadFile, args: file("docs/.env"), deny: []string{"Read(.env)"}, want: denyV},
		{name: "Read(.env) through link", mode: ModeDefault, tool: ToolReadFile, args: file("docs/innocent.txt"), deny: []string{"Read(.env)"}, want: denyV},
		{name: "Read(.env) covers grep", mode: ModeDefault, tool: ToolGrep, args: args{"pattern": "KEY", "path": ".env"}, deny: []string{"Read(.env)"}, want: denyV},
		{name: "Read(**/*.key)", mode: ModeDefault, tool: ToolReadFile, args: file(filepath.Join(root, "secrets/id.key")), deny: []string{"Read(**/*.key)"}, want: denyV},
		{name: "Read dir rule covers files", mode: ModeDefault, tool: ToolReadManyFiles, args: args{"paths": []string{"README.md", "secrets/id.key"}}, deny: []string{"Read(secrets/)"}, want: denyV},
		{name: "Edit deny covers write", mode: ModeAutoEdit, tool: ToolWriteFile, args: file("src/pkg/b.go"), deny: []string{"Edit(/src/**)"}, want: denyV},
		{name: "absolute path rule", mode: ModeDefault, tool: ToolReadFile, args: file(filepath.Join(outside, "target.txt")), deny: []string{"Read(/" + outside + "/**)"}, want: denyV},

		// .git is never written.
		{name: ".git in default", mode: ModeDefault, tool: ToolEdit, args: file(".git/config"), allow: []string{"Edit"}, want: denyV, reason: ".git"},
		{name: ".git in yolo", mode: ModeYOLO, tool: ToolWriteFile, args: file(".git/hooks/pre-commit"), want: denyV},
		{name: ".git via link", mode: ModeYOLO, tool: ToolWriteFile, args: file("src/hooks/pre-commit"), want: denyV},
		{name: ".git via ..", mode: ModeAutoEdit, tool: ToolEdit, args: file("src/../.git/config"), want: denyV},
		{name: ".git read is fine", mode: ModeDefault, tool: ToolReadFile, args: file(".git/config"), want: allowV},

		// auto-edit.
		{name: "auto-edit edit", mode: ModeAutoEdit, tool: ToolEdit, args: edit, want: allowV, reason: "inside the workspace"},
		{name: "auto-edit new file", mode: ModeAutoEdit, tool: ToolWriteFile, args: file("new/dir/file.txt"), want: allowV},
		{name: "auto-edit outside", mode: ModeAutoEdit, tool: ToolWriteFile, args: file(filepath.Join(outside, "x.txt")), want: askV},
		{name: "auto-edit .. outside", mode: ModeAutoEdit, tool: ToolWriteFile, args: file("../outside/x.txt"), want: askV},
		{name: "auto-edit link outside", mode: ModeAutoEdit, tool: ToolEdit, args: file("src/out.txt"), want: askV},
		{name: "auto-edit dir link outside", mode: ModeAutoEdit, tool: ToolWriteFile, args: file("src/outdir/new.txt"), want: askV},
		{name: "auto-edit dangling link outside", mode: ModeAutoEdit, tool: ToolWriteFile, args: file("src/dangling.txt"), want: askV},
		{name: "auto-edit shell asks", mode: ModeAutoEdit, tool: ToolShell, args: sh("npm test"), want: askV},
		{name: "auto-edit read-only shell", mode: ModeAutoEdit, tool: ToolShell, args: sh("cat README.md"), want: allowV},
		{name: "auto-edit delete asks", mode: ModeAutoEdit, tool: "delete_file", args: file("README.md"), want: askV},
		{name: "delete in .git", mode: ModeYOLO, tool: "delete_file", args: file(".git/config"), want: denyV},
		{name: "auto-edit mcp asks", mode: ModeAutoEdit, tool: "mcp__gh__create_issue", args: args{}, want: askV},

		// yolo.
		{name: "yolo shell", mode: ModeYOLO, tool: ToolShell, args: sh("rm -rf build"), want: allowV},
		{name: "yolo edit outside", mode: ModeYOLO, tool: ToolWriteFile, args: file(filepath.Join(outside, "x.txt")), want: allowV},
		{name: "yolo mcp", mode: ModeYOLO, tool: "mcp__gh__create_issue", args: args{}, want: allowV},
		{name: "yolo deny rule", mode: ModeYOLO, tool: ToolShell, args: sh("rm -rf build"), deny: []string{"Bash(rm *)"}, want: denyV},
		{name: "yolo deny path", mode: ModeYOLO, tool: ToolReadFile, args: file(".env"), deny: []string{"Read(.env)"}, want: denyV},

		// MCP and web_fetch rules.
		{name: "mcp server allow", mode: ModeDefault, tool: "mcp__gh__create_issue", args: args{}, allow: []string{"mcp__gh"}, want: allowV},
		{name: "mcp tool allow", mode: ModeDefault, tool: "mcp__gh__create_issue", args: args{}, allow: []string{"mcp__gh__create_issue"}, want: allowV},
		{name: "mcp other server", mode: ModeDefault, tool: "mcp__gh__create_issue", args: args{}, allow: []string{"mcp__ghe"}, want: askV},
		{name: "mcp server wildcard", mode: ModeYOLO, tool: "mcp__gh__create_issue", args: args{}, deny: []string{"mcp__gh__*"}, want: denyV},
		{name: "fetch domain deny", mode: ModeDefault, tool: ToolWebFetch, args: url("https://Evil.example/x"), deny: []string{"WebFetch(domain:evil.example)"}, want: denyV},
		{name: "fetch subdomain not apex", mode: ModeDefault, tool: ToolWebFetch, args: url("https://a.evil.example/x"), deny: []string{"WebFetch(domain:evil.example)"}, want: askV},
		{name: "fetch wildcard subdomain", mode: ModeDefault, tool: ToolWebFetch, args: url("https://a.evil.example/x"), deny: []string{"WebFetch(domain:*.evil.example)"}, want: denyV},
		{name: "fetch without scheme", mode: ModeDefault, tool: ToolWebFetch, args: url("evil.example/x"), deny: []string{"WebFetch(domain:evil.example)"}, want: denyV},
		{name: "fetch userinfo is not the host", mode: ModeDefault, tool: ToolWebFetch, args: url("https://evil.example@good.example/"), deny: []string{"WebFetch(domain:evil.example)"}, want: askV},
		{name: "fetch allow domain", mode: ModeDefault, tool: ToolWebFetch, args: url("https://go.dev/doc"), allow: []string{"WebFetch(domain:go.dev)"}, want: allowV, reason: "WebFetch(domain:go.dev)"},
		{name: "fetch ask domain", mode: ModeYOLO, tool: ToolWebFetch, args: url("http://intranet:8080/"), ask: []string{"WebFetch(domain:intranet)"}, want: askV},
	}
	if len(tests) < 40 {
		t.Fatalf("only %d rows", len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPolicy(t, root, tc.mode, tc.allow, tc.ask, tc.deny)
			v, reason := p.Check(context.Background(), call(t, tc.tool, tc.args))
			if v != tc.want || !strings.Contains(reason, tc.reason) {
				t.Errorf("%s %s %v: got %s (%q), want %s (reason containing %q)",
					tc.mode, tc.tool, tc.args, verdictName(v), reason, verdictName(tc.want), tc.reason)
			}
			if v == denyV && reason == "" {
				t.Errorf("a denial needs a reason for the model")
			}
		})
	}
}
