package core

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/critical"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/rewind"
	"github.com/plyhq/ply/internal/session"
)

// The running session's rewind (/rewind): its transcript, whose lock this
// process holds, its checkpoints and its chat.

// rewinder reads the session's prompts as the transcript holds them now;
// what it says goes to the buffer.
func (c *Session) rewinder() (*rewind.Rewinder, *bytes.Buffer, error) {
	if c.cp != nil {
		// Every checkpoint the transcript names is stored.
		c.cp.waitBaseline(context.Background())
	}
	if err := c.sess.w.Sync(); err != nil {
		return nil, nil, err
	}
	pl, err := session.Prompts(c.sess.w.Path())
	if err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	return &rewind.Rewinder{Store: c.CheckpointStore(), W: c.sess.w, Log: pl, Out: &out}, &out, nil
}

// Rewinds lists the session's prompts, oldest first, with how many files
// changed since each.
func (c *Session) Rewinds() ([]rewind.Point, error) {
	r, _, err := c.rewinder()
	if err != nil {
		return nil, err
	}
	return r.Points(context.Background()), nil
}

// CanUndoRewind says whether the session's last rewind can be undone.
func (c *Session) CanUndoRewind() bool {
	r, _, err := c.rewinder()
	return err == nil && r.Log.Last != nil
}

// Rewind puts the files (code) and/or the conversation back to before
// prompt n, or undoes the last rewind (n = 0); a rewound conversation
// becomes the chat's history.
func (c *Session) Rewind(n int, code, conv bool) (rewind.Result, error) {
	r, out, err := c.rewinder()
	if err != nil {
		return rewind.Result{}, err
	}
	ctx := context.Background()
	// A signal waits until the files are restored and the rewind
	// recorded (see package critical).
	defer critical.Enter(nil)()
	var res rewind.Result
	if n == 0 {
		last := r.Log.Last
		if err := r.Undo(ctx); err != nil {
			return res, err
		}
		if last.Conversation {
			res.History = nonNil(last.History)
		}
	} else {
		if err := r.Rewind(ctx, n, code, conv); err != nil {
			return res, err
		}
		if conv {
			p := r.Log.Prompts[n-1]
			res.History, res.Prompt = nonNil(p.History), p.Text
		}
	}
	if res.History != nil {
		c.chat.SetHistory(res.History)
	}
	// The prompt is given back on its own, not in the note.
	note := out.String()
	note = strings.Replace(note, " (ply --continue)", "", 1)
	if i := strings.Index(note, " The prompt was:\n"); i >= 0 {
		note = note[:i] + "\n"
	}
	res.Note = strings.TrimSpace(note)
	c.log.Info("rewind from the UI", "prompt", n, "code", code, "conversation", conv)
	return res, nil
}

func nonNil(h []llm.Message) []llm.Message {
	if h == nil {
		return []llm.Message{}
	}
	return h
}

// wayBack names the newest prompt from before which the conversation
// could fit the window (fits), for the error of a chat that cannot make it
// fit: after an answer that alone fills the window, the prompt that asked
// for it. "" when the transcript cannot be read or no prompt qualifies.
func (c *Session) wayBack(fits func([]llm.Message) bool) string {
	if err := c.sess.w.Sync(); err != nil {
		return ""
	}
	pl, err := session.Prompts(c.sess.w.Path())
	if err != nil {
		return ""
	}
	for i := len(pl.Prompts) - 1; i >= 0; i-- {
		if p := pl.Prompts[i]; fits(p.History) {
			return fmt.Sprintf("what followed prompt %d alone fills the window; to go on, take the conversation back to before it: ply rewind %d --conversation (/rewind in the TUI), then ply --continue", p.N, p.N)
		}
	}
	return ""
}
