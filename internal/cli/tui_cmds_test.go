package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/tui"
)

func TestCustomCommandDirsFollowTrust(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	for _, f := range []string{".ply/commands/a.md", ".claude/commands/b.md", ".qwen/commands/c.md"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("do it"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config{home: home, workspace: ws}
	names := func() string {
		cmds, _ := customcmd.Load(customCommandDirs(cfg)...)
		var out []string
		for _, c := range cmds {
			out = append(out, c.Name+"="+c.Source)
		}
		return strings.Join(out, " ")
	}
	if got := names(); got != "" {
		t.Fatalf("an untrusted folder's commands were loaded: %s", got)
	}
	if got := ignoredConfig(ws); !strings.Contains(got, "1 command in .ply/commands") {
		t.Fatalf("the untrusted notice does not name the commands: %q", got)
	}
	cfg.trust.trusted = true
	if got := names(); got != "a=project b=.claude c=.qwen" {
		t.Fatalf("trusted: %s", got)
	}
}

func TestUserShell(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	sh := tools.NewShell(ws)
	sh.SetEnv([]string{"PATH=" + os.Getenv("PATH"), "SECRET_KEY="})
	reg.Register(sh)
	run := userShell(reg)
	out, code, err := run(context.Background(), "echo out; echo err >&2; exit 3")
	if err != nil || code != 3 || out != "out\nerr\n" {
		t.Fatalf("got %q %d %v", out, code, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := run(ctx, "sleep 5"); err == nil {
		t.Fatal("a cancelled command reported no error")
	}
	if userShell(tools.NewRegistry()) != nil {
		t.Fatal("a session without the shell tool got a shell")
	}
}

func TestPermissionsEditRule(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := permission.New(permission.Config{Workspace: ws, Settings: []permission.RuleSet{{Source: "/u/settings.json", Deny: []string{"Read(.env)"}}}})
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(t.TempDir(), ".ply", "settings.json")
	tc := tui.Config{ProjectSettings: proj}
	addPermissionRules(&tc, p, slog.New(slog.DiscardHandler))
	if err := tc.Extra.EditRule(true, "allow", "Bash(npm test)", "project"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(proj); !strings.Contains(string(b), `"Bash(npm test)"`) {
		t.Fatalf("not saved: %s", b)
	}
	if err := tc.Extra.EditRule(true, "deny", "Bash(rm:*)", "session"); err == nil || !strings.Contains(err.Error(), "permissions.deny") {
		t.Fatalf("deny: %v", err)
	}
	if err := tc.Extra.EditRule(true, "allow", "Bash(go test:*)", "user"); err == nil {
		t.Fatal("saved to a user file that is not there")
	}
	got := tc.Extra.Rules()
	if len(got) != 2 || got[0] != (tui.RuleInfo{List: "deny", Rule: "Read(.env)", Source: "/u/settings.json"}) || got[1].Rule != "Bash(npm test)" {
		t.Fatalf("rules %+v", got)
	}
	if err := tc.Extra.EditRule(false, "allow", "Bash(npm test)", "session"); err != nil || len(tc.Extra.Rules()) != 1 {
		t.Fatalf("remove: %v %+v", err, tc.Extra.Rules())
	}
}
