package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/tui"
)

// addTUICommands gives the commands of the TUI's cmd_*.go files their
// reach into the core: custom commands, the user's shell commands, the
// conversation for /export and /copy, and what /diff, /context,
// /permissions, /mcp and /agents show.
func addTUICommands(t *tui.Config, cfg *config, c *core.Session, log *slog.Logger) {
	cmds, errs := customcmd.Load(customCommandDirs(cfg)...)
	t.Extra.Custom = cmds
	for _, e := range errs {
		log.Warn("custom command skipped", "err", e)
		t.Notice = strings.TrimSpace(t.Notice + "\n" + e.Error() + " (skipped)")
	}
	t.Extra.RunShell = userShell(c.Registry())
	t.Extra.History = c.Chat().History
	addTUIInfo(t, cfg, c, log)
}

// customCommandDirs lists where custom commands are read, lowest
// precedence first: the user's, then a trusted project's (the folders of
// other agents' formats first, ply's own last).
func customCommandDirs(cfg *config) []customcmd.Dir {
	var dirs []customcmd.Dir
	if cfg.home != "" {
		dirs = append(dirs, customcmd.Dir{Path: filepath.Join(cfg.home, "commands"), Source: "user"})
	}
	if cfg.trust.trusted {
		for _, d := range []struct{ dir, src string }{{".claude", ".claude"}, {".qwen", ".qwen"}, {".ply", "project"}} {
			dirs = append(dirs, customcmd.Dir{Path: filepath.Join(cfg.workspace, d.dir, "commands"), Source: d.src})
		}
	}
	return dirs
}

// countCustomCommands counts a project's own custom commands, for the
// notice of what an untrusted folder's run leaves out.
func countCustomCommands(workspace string) int {
	cmds, _ := customcmd.Load(customcmd.Dir{Path: filepath.Join(workspace, ".ply", "commands")})
	return len(cmds)
}

// maxUserShellOutput bounds what a user's shell command hands back.
const maxUserShellOutput = 256 << 10

var exitCodeLine = regexp.MustCompile(`(?m)^Exit code: (\d+)$`)

// userShell runs a command the user typed (!cmd) or confirmed (a custom
// command's !`cmd`) through the shell tool, as an approved call runs: its
// environment without ply's secrets, its timeout, its workspace. nil when
// the session has no shell tool.
func userShell(reg *tools.Registry) func(ctx context.Context, command string) (string, int, error) {
	t, ok := reg.Lookup((*tools.Shell)(nil).Name())
	if !ok {
		return nil
	}
	return func(ctx context.Context, command string) (string, int, error) {
		args, err := json.Marshal(map[string]any{"command": command, "description": "run by the user"})
		if err != nil {
			return "", 0, err
		}
		var out capped
		res, err := t.Execute(ctx, args, &out)
		if err != nil {
			return out.String(), 0, fmt.Errorf("running %q: %w", command, err)
		}
		code := 0
		if m := exitCodeLine.FindStringSubmatch(res.Output); m != nil {
			code, _ = strconv.Atoi(m[1])
		}
		if res.IsError {
			// Not run (no sandbox), timed out or cancelled: the tool says why.
			return out.String(), code, errors.New(lastLine(res.Output))
		}
		return out.String(), code, nil
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// capped keeps the first maxUserShellOutput bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxUserShellOutput - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		c.cut = true
	} else {
		c.buf.Write(p)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.buf.String()
	if c.cut {
		s += fmt.Sprintf("\n[output cut at %d bytes]", maxUserShellOutput)
	}
	return s
}
