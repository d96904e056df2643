package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/tools"
)

// What the user does outside the model's turn: custom slash commands,
// shell commands typed at the prompt (!cmd), /clear, and the idle
// notification.

// CustomCommands loads the custom slash commands, lowest precedence
// first: the user's, then a trusted project's. The errors name the files
// skipped.
func (c *Session) CustomCommands() ([]customcmd.Command, []error) {
	return customcmd.Load(CustomCommandDirs(c.cfg.Home, c.cfg.Workspace, c.cfg.Trusted)...)
}

// CustomCommandDirs lists where custom commands are read, lowest
// precedence first: the user's, then a trusted project's (the folders of
// other agents' formats first, ply's own last).
func CustomCommandDirs(home, workspace string, trusted bool) []customcmd.Dir {
	var dirs []customcmd.Dir
	if home != "" {
		dirs = append(dirs, customcmd.Dir{Path: filepath.Join(home, "commands"), Source: "user"})
	}
	if trusted {
		for _, d := range []struct{ dir, src string }{{".claude", ".claude"}, {".qwen", ".qwen"}, {".ply", "project"}} {
			dirs = append(dirs, customcmd.Dir{Path: filepath.Join(workspace, d.dir, "commands"), Source: d.src})
		}
	}
	return dirs
}

// UseCustom marks cmd as the custom command whose prompt is sent next:
// its allowed-tools and model hold from then until the next user prompt.
func (c *Session) UseCustom(cmd customcmd.Command) { c.front.Use(cmd) }

// newFront applies custom commands' front matter through the policy and
// the chat.
func (c *Session) newFront() { c.front = customcmd.NewFront(c.policy, chatModels{c.chat}) }

// chatModels is the chat as customcmd.Front switches its model.
type chatModels struct{ ch *chat.Chat }

func (m chatModels) Model() string        { return m.ch.Config().Model }
func (m chatModels) SetModel(name string) { m.ch.SetModel(name) }

// Idle tells the Notification hooks that the user has been waited for
// since the agent finished ("idle_prompt"); without such hooks it does
// nothing. HasIdle says whether there are any, so an entry times nothing
// needlessly.
func (c *Session) Idle(ctx context.Context) {
	c.hooks.Notify(ctx, hooks.NotifyIdle, "Waiting for input", "ply is waiting for your input")
}

func (c *Session) HasIdle() bool { return c.hooks.Has(hooks.Notification) }

// maxUserShellOutput bounds what a user's shell command hands back.
const maxUserShellOutput = 256 << 10

var exitCodeLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit code: (\d+)$`) })

// errNoShell: the session has no shell tool to run the user's command.
var errNoShell = errors.New("the shell tool is not available in this session")

// RunShell runs a command the user typed (!cmd) or confirmed (a custom
// command's !`cmd`) through the shell tool, as an approved call runs: its
// environment without ply's secrets, its timeout, its workspace. output
// is what it printed, stdout and stderr together, cut at 256 KiB; code
// is its exit status.
func (c *Session) RunShell(ctx context.Context, command string) (output string, code int, err error) {
	t, ok := c.reg.Lookup((*tools.Shell)(nil).Name())
	if !ok {
		return "", 0, errNoShell
	}
	args, err := json.Marshal(map[string]any{"command": command, "description": "run by the user"})
	if err != nil {
		return "", 0, err
	}
	var out capped
	res, err := t.Execute(ctx, args, &out)
	if err != nil {
		return out.String(), 0, fmt.Errorf("running %q: %w", command, err)
	}
	if m := exitCodeLine().FindStringSubmatch(res.Output); m != nil {
		code, _ = strconv.Atoi(m[1])
	}
	if res.IsError {
		// Not run (no sandbox), timed out or cancelled: the tool says why.
		return out.String(), code, errors.New(lastLine(res.Output))
	}
	return out.String(), code, nil
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
