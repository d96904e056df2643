package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/tui"
)

// endTUI settles the session once the interactive UI is gone: it is
// closed, and removed if this run created it and it never got a prompt;
// a kept session gets the exit summary with the command that resumes it.
func endTUI(cfg *config, c *core, sum tui.Summary, out io.Writer, log *slog.Logger) {
	kept, err := closeSessionKept(cfg, c.ws.Root(), c.sess.w, c.sess.created, log)
	if err != nil {
		fmt.Fprintf(out, "ply: saving the session: %v\n", err)
	}
	if kept {
		fmt.Fprint(out, sum.Text(c.sess.id))
	}
}

// closeSession closes w, removing the session when created is set and it
// holds no prompt: launching ply and leaving must not list a "0 turns"
// session.
func closeSession(cfg *config, root string, w *session.Writer, created bool, log *slog.Logger) error {
	_, err := closeSessionKept(cfg, root, w, created, log)
	return err
}

func closeSessionKept(cfg *config, root string, w *session.Writer, created bool, log *slog.Logger) (kept bool, err error) {
	if err = w.Close(); errors.Is(err, session.ErrClosed) {
		err = nil
	}
	if !created {
		return true, err
	}
	sum, ferr := session.Find(cfg.home, root, w.Meta().ID)
	if ferr != nil || sum.Turns > 0 || sum.FirstPrompt != "" {
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
