package core

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/tools"
)

func TestCustomCommandDirsFollowTrust(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	for _, f := range []string{".ply/commands/a.md", ".claude/commands/b.md", ".qwen/commands/c.md"} {
		writeFile(t, filepath.Join(ws, f), "do it", 0o644)
	}
	names := func(trusted bool) string {
		cmds, _ := customcmd.Load(CustomCommandDirs(home, ws, trusted)...)
		var out []string
		for _, c := range cmds {
			out = append(out, c.Name+"="+c.Source)
		}
		return strings.Join(out, " ")
	}
	if got := names(false); got != "" {
		t.Fatalf("an untrusted folder's commands were loaded: %s", got)
	}
	if got := names(true); got != "a=project b=.claude c=.qwen" {
		t.Fatalf("trusted: %s", got)
	}
}

func TestRunShell(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	sh := tools.NewShell(ws)
	sh.SetEnv([]string{"PATH=" + os.Getenv("PATH"), "SECRET_KEY="})
	reg.Register(sh)
	c := &Session{reg: reg}
	out, code, err := c.RunShell(context.Background(), "echo out; echo err >&2; exit 3")
	if err != nil || code != 3 || out != "out\nerr\n" {
		t.Fatalf("got %q %d %v", out, code, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.RunShell(ctx, "sleep 5"); err == nil {
		t.Fatal("a cancelled command reported no error")
	}
	none := &Session{reg: tools.NewRegistry()}
	if _, _, err := none.RunShell(context.Background(), "true"); !errors.Is(err, errNoShell) {
		t.Fatalf("a session without the shell tool ran a command: %v", err)
	}
}

func TestEditRule(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := permission.New(permission.Config{Workspace: ws, Settings: []permission.RuleSet{{Source: "/u/settings.json", Deny: []string{"Read(.env)"}}}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Session{policy: p, cfg: &Config{Workspace: ws.Root()}, log: slog.New(slog.DiscardHandler)}
	proj := c.SettingsFile("project")
	if err := c.EditRule(true, "allow", "Bash(npm test)", "project"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(proj); !strings.Contains(string(b), `"Bash(npm test)"`) {
		t.Fatalf("not saved: %s", b)
	}
	if err := c.EditRule(true, "deny", "Bash(rm:*)", "session"); err == nil || !strings.Contains(err.Error(), "permissions.deny") {
		t.Fatalf("deny: %v", err)
	}
	if err := c.EditRule(true, "allow", "Bash(go test:*)", "user"); err == nil {
		t.Fatal("saved to a user file that is not there (no ply home)")
	}
	got := c.Rules()
	if len(got) != 2 || got[0].List != "deny" || got[0].Rule != "Read(.env)" || got[0].Source != "/u/settings.json" || got[1].Rule != "Bash(npm test)" {
		t.Fatalf("rules %+v", got)
	}
	if err := c.EditRule(false, "allow", "Bash(npm test)", "session"); err != nil || len(c.Rules()) != 1 {
		t.Fatalf("remove: %v %+v", err, c.Rules())
	}
}
