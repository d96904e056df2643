package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/customcmd"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/scheduler"
)

// A custom command's allowed-tools and model hold while its prompt runs,
// through the session's real permission policy and chat, and end at the
// next user prompt.
func TestCustomCommandFrontMatter(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t)
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "big", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	c, warns := testCore(t, dir, env, "-p", "x")

	tool, ok := c.Registry().Lookup("run_shell_command")
	if !ok {
		t.Fatal("no shell tool")
	}
	args, _ := json.Marshal(map[string]string{"command": "git add main.go"})
	call := &scheduler.Call{Request: scheduler.Request{CallID: "1", Name: "run_shell_command", Args: string(args)}, Tool: tool, Params: args}
	verdict := func() scheduler.Verdict {
		v, _ := c.Policy().Check(context.Background(), call)
		return v
	}
	if v := verdict(); v == scheduler.VerdictAllow {
		t.Fatal("git add allowed before any command ran")
	}
	c.UseCustom(customcmd.Command{Name: "commit", AllowedTools: []string{"Bash(git add:*)"}, Model: "small"})
	c.OnUserQuery(context.Background(), nil) // the command's prompt is sent
	if v, m := verdict(), c.Chat().Config().Model; v != scheduler.VerdictAllow || m != "small" {
		t.Errorf("while /commit runs: verdict %v, model %s", v, m)
	}
	c.OnUserQuery(context.Background(), nil) // the next typed prompt
	if v, m := verdict(), c.Chat().Config().Model; v == scheduler.VerdictAllow || m != "big" {
		t.Errorf("after /commit: verdict %v, model %s", v, m)
	}
	c.UseCustom(customcmd.Command{Name: "odd", AllowedTools: []string{"Bash(("}})
	c.OnUserQuery(context.Background(), nil)
	if !strings.Contains(warns.String(), "/odd") {
		t.Errorf("bad rule not reported: %q", warns.String())
	}
}
