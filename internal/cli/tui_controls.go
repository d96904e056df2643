package cli

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tui"
)

// addTUIControls gives the interactive UI its slash commands' reach into
// the core: compression, the model, the approval mode, sessions, tools
// and instruction files.
func addTUIControls(t *tui.Config, cfg *config, c *core.Session, log *slog.Logger) {
	ch := c.Chat()
	t.Compress = func(ctx context.Context) (int, int, bool) {
		ev, ok := ch.Compress(ctx)
		if ok {
			c.Transcript().AppendCompaction(ch.History())
		}
		return ev.TokensBefore, ev.TokensAfter, ok
	}
	t.ContextUsed = func() (int, int) {
		return core.ContextUsed(ch.Estimate()), c.ContextWindow(ch.Config().Model)
	}
	t.ModelInfo = func() (modelinfo.Info, bool) { return c.ModelFacts(ch.Config().Model) }
	t.SetModel = func(m string) error {
		if strings.TrimSpace(m) == "" {
			return errors.New("empty model name")
		}
		ch.SetModel(m)
		log.Info("model switched", "model", m)
		return nil
	}
	t.Mode = func() string { return c.Policy().Mode().String() }
	t.SetMode = func(m string) error {
		pm, err := permission.ParseMode(m)
		if err != nil {
			return err
		}
		return c.Policy().SetMode(pm)
	}
	for _, m := range permission.Modes() {
		t.Modes = append(t.Modes, m.String())
	}
	root := c.Workspace().Root()
	t.Sessions = func() ([]tui.SessionInfo, error) {
		list, err := session.List(cfg.home, root)
		if err != nil {
			return nil, err
		}
		out := make([]tui.SessionInfo, len(list))
		for i, s := range list {
			out[i] = tui.SessionInfo{ID: s.ID, Modified: s.Modified, Turns: s.Turns, FirstPrompt: s.FirstPrompt, Current: s.ID == c.ID()}
		}
		return out, nil
	}
	t.Resume = c.Switch
	t.Tools = func() []tui.ToolInfo {
		var out []tui.ToolInfo
		for _, tl := range c.Registry().All() {
			out = append(out, tui.ToolInfo{Name: tl.Name(), Description: tl.Description()})
		}
		return out
	}
	t.Memory = func() []tui.MemoryFile {
		// Read again: what is on disk now, as the next session would load
		// it. UNFINISHED: the system prompt keeps what was read at start.
		var out []tui.MemoryFile
		for _, in := range sysprompt.LoadInstructions(cfg.home, cfg.workspace, nil) {
			out = append(out, tui.MemoryFile{Path: in.Path, Bytes: len(in.Content)})
		}
		return out
	}
}
