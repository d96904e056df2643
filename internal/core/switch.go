package core

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/google/uuid"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/repair"
	"github.com/plyhq/ply/internal/session"
)

// switchSession makes the saved session id the current one (/resume): its
// history goes into the chat, and its transcript takes the appends from
// now on; the session left is closed, saved as it stands. The UI calls it
// only while no interaction runs.
//
// UNFINISHED: hooks keep the first session's id and transcript path, and
// an interrupted turn of the resumed session is not resent (the chat's
// repair answers its dangling calls when the next prompt is pushed).
func switchSession(cfg *Config, c *Session, root, id string, log *slog.Logger) ([]llm.Message, error) {
	sum, err := session.Find(cfg.Home, root, id)
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
	c.switchPrompt(tr)
	if err := closeSession(cfg, root, old, created, log); err != nil {
		log.Error("saving the session left by /resume", "err", err)
	}
	log.Info("resumed from the UI", "session", tr.Meta.ID, "entries", len(h))
	return h, nil
}

// Clear starts a new conversation in a new session (/clear): an empty
// history, a new transcript that takes the appends from now on, a system
// prompt built anew, and the SessionStart hooks again (source "clear")
// before the next prompt. The session left is closed, saved as it stands,
// and stays resumable (/resume, ply -r); its schedules stop with it. The
// UI calls it only while no interaction runs.
//
// UNFINISHED: as after /resume, hooks keep the first session's id and
// transcript path.
func (c *Session) Clear() error {
	id := uuid.NewString()
	w, err := session.Create(c.cfg.Home, c.ws.Root(), id, c.Model())
	if err != nil {
		return fmt.Errorf("starting a new session: %w", err)
	}
	root := c.ws.Root()
	old, created := c.sess.w, c.sess.created
	fresh := &session.Transcript{}
	c.switchSchedules(w, fresh) // schedresume.go
	c.chat.SetHistory(nil)
	c.chat.OnAppend(w.Append)
	c.sess.w, c.sess.id, c.sess.history, c.sess.created = w, id, nil, true
	c.switchPrompt(fresh)
	c.startMu.Lock()
	c.startSource = "clear"
	c.startMu.Unlock()
	if err := closeSession(c.cfg, root, old, created, c.log); err != nil {
		c.log.Error("saving the session left by /clear", "err", err)
	}
	c.log.Info("cleared: a new session", "session", id, "left", old.Meta().ID)
	return nil
}

// closeSession closes w, removing the session when created is set and it
// holds no prompt: launching ply and leaving must not list a "0 turns"
// session.
func closeSession(cfg *Config, root string, w *session.Writer, created bool, log *slog.Logger) error {
	_, err := closeSessionKept(cfg, root, w, created, log)
	return err
}

func closeSessionKept(cfg *Config, root string, w *session.Writer, created bool, log *slog.Logger) (kept bool, err error) {
	if err = w.Close(); errors.Is(err, session.ErrClosed) {
		err = nil
	}
	if !created {
		return true, err
	}
	sum, ferr := session.Find(cfg.Home, root, w.Meta().ID)
	if ferr != nil || sum.Turns > 0 || sum.FirstPrompt != "" || sum.Title != "" {
		return true, err
	}
	if derr := session.Discard(w); derr != nil && !errors.Is(derr, session.ErrClosed) {
		log.Warn("removing a session that got no prompt", "session", w.Meta().ID, "err", derr)
		return true, err
	}
	// Its directory was made at start and is empty; a full one stays.
	_ = os.Remove(w.Dir())
	log.Info("removed a session that got no prompt", "session", w.Meta().ID)
	return false, nil
}
