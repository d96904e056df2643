package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/repair"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tui"
)

// addTUIControls gives the interactive UI its slash commands' reach into
// the core: compression, the model, the approval mode, sessions, tools
// and instruction files.
func addTUIControls(t *tui.Config, cfg *config, c *core, log *slog.Logger) {
	ch, sess := c.chat, c.sess
	t.Compress = func(ctx context.Context) (int, int, bool) {
		ev, ok := ch.Compress(ctx)
		if ok {
			sess.w.AppendCompaction(ch.History())
		}
		return ev.TokensBefore, ev.TokensAfter, ok
	}
	t.ContextUsed = func() (int, int) {
		return contextUsed(ch.Estimate()), contextWindow(cfg, ch.Config().Model)
	}
	t.ModelInfo = func() (modelinfo.Info, bool) { return modelFacts(cfg, ch.Config().Model) }
	t.SetModel = func(m string) error {
		if strings.TrimSpace(m) == "" {
			return errors.New("empty model name")
		}
		ch.SetModel(m)
		log.Info("model switched", "model", m)
		return nil
	}
	t.Mode = func() string { return c.policy.Mode().String() }
	t.SetMode = func(m string) error {
		pm, err := permission.ParseMode(m)
		if err != nil {
			return err
		}
		return c.policy.SetMode(pm)
	}
	for _, m := range permission.Modes() {
		t.Modes = append(t.Modes, m.String())
	}
	root := c.ws.Root()
	t.Sessions = func() ([]tui.SessionInfo, error) {
		list, err := session.List(cfg.home, root)
		if err != nil {
			return nil, err
		}
		out := make([]tui.SessionInfo, len(list))
		for i, s := range list {
			out[i] = tui.SessionInfo{ID: s.ID, Modified: s.Modified, Turns: s.Turns, FirstPrompt: s.FirstPrompt, Current: s.ID == sess.id}
		}
		return out, nil
	}
	t.Resume = func(id string) ([]llm.Message, error) { return switchSession(cfg, c, root, id, log) }
	t.Tools = func() []tui.ToolInfo {
		var out []tui.ToolInfo
		for _, tl := range c.reg.All() {
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

// switchSession makes the saved session id the current one (/resume): its
// history goes into the chat, and its transcript takes the appends from
// now on; the session left is closed, saved as it stands. The UI calls it
// only while no interaction runs.
//
// UNFINISHED: hooks keep the first session's id and transcript path, and
// an interrupted turn of the resumed session is not resent (the chat's
// repair answers its dangling calls when the next prompt is pushed).
func switchSession(cfg *config, c *core, root, id string, log *slog.Logger) ([]llm.Message, error) {
	sum, err := session.Find(cfg.home, root, id)
	if err != nil {
		return nil, err
	}
	w, tr, err := session.Open(sum.Path)
	if err != nil {
		var held *session.HeldError
		if errors.As(err, &held) {
			return nil, heldError(held)
		}
		return nil, fmt.Errorf("opening session %s: %w", sum.ID, err)
	}
	for _, warn := range tr.Warnings {
		log.Warn("transcript", "warning", warn.String())
	}
	h, rep := repair.RepairWith(tr.History, repair.Options{SkipTrailing: true})
	if rep.Changed() {
		log.Warn("repaired the loaded history", "report", rep.String())
	}
	old, created := c.sess.w, c.sess.created
	c.switchSchedules(w, tr) // schedresume.go
	c.chat.SetHistory(h)
	c.chat.OnAppend(w.Append)
	c.sess.w, c.sess.id, c.sess.history, c.sess.created = w, tr.Meta.ID, h, false
	if err := closeSession(cfg, root, old, created, log); err != nil {
		log.Error("saving the session left by /resume", "err", err)
	}
	log.Info("resumed from the UI", "session", tr.Meta.ID, "entries", len(h))
	return h, nil
}
