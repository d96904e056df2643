package cli

import (
	"bytes"
	"context"
	"log/slog"
	"strings"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/tui"
)

// addRewind wires /rewind to the running session: its transcript (this
// process holds its lock), its checkpoints and its chat.
func addRewind(t *tui.Config, c *core.Session, log *slog.Logger) {
	load := func() (*rewinder, *bytes.Buffer, error) {
		if err := c.Transcript().Sync(); err != nil {
			return nil, nil, err
		}
		pl, err := session.Prompts(c.Transcript().Path())
		if err != nil {
			return nil, nil, err
		}
		store := c.CheckpointStore()
		var out bytes.Buffer
		return &rewinder{store: store, w: c.Transcript(), log: pl, out: &out}, &out, nil
	}
	t.Rewinds = func() ([]tui.RewindPoint, error) {
		r, _, err := load()
		if err != nil {
			return nil, err
		}
		changes := r.changedSince(context.Background())
		out := make([]tui.RewindPoint, len(r.log.Prompts))
		for i, p := range r.log.Prompts {
			out[i] = tui.RewindPoint{N: p.N, Time: p.Time, Prompt: p.Text, Changed: max(changes[i], -1)}
		}
		return out, nil
	}
	t.CanUndoRewind = func() bool {
		r, _, err := load()
		return err == nil && r.log.Last != nil
	}
	t.Rewind = func(n int, code, conv bool) (tui.RewindResult, error) {
		r, out, err := load()
		if err != nil {
			return tui.RewindResult{}, err
		}
		ctx := context.Background()
		var res tui.RewindResult
		if n == 0 {
			last := r.log.Last
			if err := r.undo(ctx); err != nil {
				return res, err
			}
			if last.Conversation {
				res.History = nonNil(last.History)
			}
		} else {
			if err := r.rewind(ctx, rewindArgs{n: n, code: code, conversation: conv}); err != nil {
				return res, err
			}
			if conv {
				p := r.log.Prompts[n-1]
				res.History, res.Prompt = nonNil(p.History), p.Text
			}
		}
		if res.History != nil {
			c.Chat().SetHistory(res.History)
		}
		// The prompt goes back in the input box, not in the note.
		note := out.String()
		note = strings.Replace(note, " (ply --continue)", "", 1)
		if i := strings.Index(note, " The prompt was:\n"); i >= 0 {
			note = note[:i] + "\n"
		}
		res.Note = strings.TrimSpace(note)
		log.Info("rewind from the UI", "prompt", n, "code", code, "conversation", conv)
		return res, nil
	}
}

func nonNil(h []llm.Message) []llm.Message {
	if h == nil {
		return []llm.Message{}
	}
	return h
}
