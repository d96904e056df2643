package cli

import (
	"log/slog"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tui"
)

// addTUIControls gives the interactive UI the session (whose controls it
// probes: the approval mode, the model, compression) and its slash
// commands' reach into the rest of the core: the context, sessions, tools
// and instruction files.
func addTUIControls(t *tui.Config, cfg *config, c *core.Session, log *slog.Logger) {
	ch := c.Chat()
	t.Session = c
	t.ContextUsed = func() (int, int) {
		return core.ContextUsed(ch.Estimate()), c.ContextWindow(ch.Config().Model)
	}
	t.ModelInfo = func() (modelinfo.Info, bool) { return c.ModelFacts(ch.Config().Model) }
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
