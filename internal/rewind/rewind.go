// Package rewind puts a session back to before one of its prompts — the
// workspace's files from the prompt's checkpoint, the conversation from
// the transcript, or both — records the rewind in the transcript, and
// undoes the last one. `ply rewind` and a running session's /rewind both
// use it; it does not parse arguments, find sessions or open them.
package rewind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/session"
)

// InputError is a request that cannot be met as asked: a prompt the
// session does not have, files with no checkpoint to restore them from,
// no rewind to undo.
type InputError string

func (e InputError) Error() string { return string(e) }

// Rewinder rewinds one session. Log is the session's prompts as its
// transcript holds them, W the transcript's writer (the caller holds its
// lock), Store its checkpoints (nil when checkpointing is off); what it
// did, and what it could not, goes to Out.
type Rewinder struct {
	Store *checkpoint.Store
	W     *session.Writer
	Log   *session.PromptLog
	Out   io.Writer
}

// List prints one line per prompt: number, time, first line, and how many
// files changed from its checkpoint to the newest one. It reads the store
// only: no scan of the workspace, no lock, so that it answers at once
// beside a running session, whatever the size of the tree.
func (r *Rewinder) List(ctx context.Context) error {
	if len(r.Log.Prompts) == 0 {
		fmt.Fprintln(r.Out, "This session has no prompts to rewind to.")
		return nil
	}
	changes, newest := r.changedToNewest()
	for i, p := range r.Log.Prompts {
		first, _, _ := strings.Cut(p.Text, "\n")
		fmt.Fprintf(r.Out, "%3d  %s  %-50s  %s\n", p.N, p.Time.Local().Format("2006-01-02 15:04"), clipLine(first, 50), changes[i].String(p.Checkpoint != ""))
	}
	if t, ok := checkpoint.IDTime(newest); ok {
		fmt.Fprintf(r.Out, "Changes are counted up to the last checkpoint, %s.\n", t.Local().Format("2006-01-02 15:04:05"))
	}
	if r.Log.Last != nil {
		fmt.Fprintln(r.Out, "The last rewind can be undone: ply rewind --undo")
	}
	return nil
}

// changed is how many files changed since a prompt's checkpoint.
type changed struct {
	// n counts them: -1 when the prompt has no checkpoint (or there
	// is nothing to compare with), -2 when it is gone.
	n int
	// partial is set for a checkpoint never stored whole (ply stopped
	// while taking it): n counts the files saved ahead of the batch
	// that changed them, the only ones it can restore.
	partial bool
}

// String describes c for a listing; held says whether the prompt names a
// checkpoint.
func (c changed) String(held bool) string {
	switch {
	case c.n >= 0 && c.partial:
		return "partial checkpoint, " + plural(c.n, "file") + " changed since"
	case c.n >= 0:
		return plural(c.n, "file") + " changed since"
	case held && c.n == -2:
		return "checkpoint pruned"
	}
	return "no checkpoint"
}

// changedToNewest returns, prompt by prompt, what changed from its
// checkpoint to the store's newest (see changedTo), and the newest's id.
func (r *Rewinder) changedToNewest() ([]changed, string) {
	if r.Store == nil {
		return r.changedTo(""), ""
	}
	newest := r.Store.Newest()
	return r.changedTo(newest), newest
}

// changedTo returns, prompt by prompt, what changed from its checkpoint
// to the checkpoint to. The counts come from the change records; a
// checkpoint they do not reach is compared whole, and one never stored
// whole by the files saved ahead of it.
func (r *Rewinder) changedTo(to string) []changed {
	out := make([]changed, len(r.Log.Prompts))
	ids := make([]string, len(r.Log.Prompts))
	for i, p := range r.Log.Prompts {
		out[i].n, ids[i] = -1, p.Checkpoint
	}
	if to == "" {
		return out
	}
	var whole *checkpoint.Manifest
	for i, n := range r.Store.ChangeCounts(ids, to) {
		switch {
		case ids[i] == "":
		case n >= 0:
			out[i].n = n
		default:
			if whole == nil {
				var err error
				if whole, err = r.Store.Load(to); err != nil {
					return out
				}
			}
			m, partial, err := r.Store.LoadOrSavedAhead(ids[i], whole)
			if err != nil {
				out[i].n = -2
				continue
			}
			out[i] = changed{n: len(checkpoint.Diff(m, whole)), partial: partial}
		}
	}
	return out
}

// current records the workspace as it is now, with the roots of the
// newest checkpoint of the session, and returns its id; "" when there is
// none.
func (r *Rewinder) current(ctx context.Context) string {
	for i := len(r.Log.Prompts) - 1; i >= 0; i-- {
		m, err := r.Store.Load(r.Log.Prompts[i].Checkpoint)
		if err != nil {
			continue
		}
		res, err := r.Store.Checkpoint(ctx, m.Roots)
		if err != nil {
			return ""
		}
		return res.ID
	}
	return ""
}

// Rewind puts the files (code) and/or the conversation back to before
// prompt n, and records it.
func (r *Rewinder) Rewind(ctx context.Context, n int, code, conversation bool) error {
	if n > len(r.Log.Prompts) {
		return InputError(fmt.Sprintf("no prompt %d: this session has %s (ply rewind --list)", n, plural(len(r.Log.Prompts), "prompt")))
	}
	p := r.Log.Prompts[n-1]
	rec := session.Rewind{Prompt: n, Code: code, Conversation: conversation}
	if code {
		if r.Store == nil {
			return InputError("checkpointing is off (checkpointing.enabled): only the conversation can be rewound")
		}
		if p.Checkpoint == "" {
			return InputError(fmt.Sprintf("prompt %d has no checkpoint (checkpointing was off): use --conversation", n))
		}
		res, err := r.restore(ctx, p.Checkpoint)
		if err != nil {
			return r.failed(n, res, err)
		}
		rec.Checkpoint = res.Undo
		fmt.Fprintf(r.Out, "Restored the files to before prompt %d: %d written, %d deleted.\n", n, len(res.Written), len(res.Deleted))
	}
	if conversation {
		rec.History = p.History
		fmt.Fprintf(r.Out, "The conversation goes on from before prompt %d (ply --continue). The prompt was:\n%s\n", n, p.Text)
	}
	r.W.AppendRewind(rec)
	return r.W.Sync()
}

// Undo undoes the last rewind, and records it.
func (r *Rewinder) Undo(ctx context.Context) error {
	last := r.Log.Last
	if last == nil {
		return InputError("no rewind to undo in this session")
	}
	rec := session.Rewind{Undo: true, Code: last.Code, Conversation: last.Conversation}
	if last.Code && r.Store == nil {
		return InputError("checkpointing is off (checkpointing.enabled): the files cannot be put back")
	}
	if last.Code {
		res, err := r.restore(ctx, last.Checkpoint)
		if err != nil {
			return r.failed(0, res, err)
		}
		rec.Checkpoint = res.Undo
		fmt.Fprintf(r.Out, "Put the files back as they were before the rewind: %d written, %d deleted.\n", len(res.Written), len(res.Deleted))
	}
	if last.Conversation {
		rec.History = last.History
		fmt.Fprintln(r.Out, "The conversation is back as it was before the rewind.")
	}
	r.W.AppendRewind(rec)
	return r.W.Sync()
}

// Finish completes a rewind that was interrupted (a crash, SIGKILL) and
// left the files half restored, and records it, so that Undo puts back
// the files as they were before it, with any work done on them since.
func (r *Rewinder) Finish(ctx context.Context) error {
	if r.Store == nil {
		return InputError("checkpointing is off (checkpointing.enabled): there is no rewind to finish")
	}
	t, ok := r.Store.Pending()
	if !ok {
		return InputError("no interrupted rewind to finish")
	}
	res, err := r.restore(ctx, t)
	if err != nil {
		return r.failed(0, res, err)
	}
	fmt.Fprintf(r.Out, "Finished the interrupted rewind: %d written, %d deleted. ply rewind --undo puts the files back as they were before it.\n", len(res.Written), len(res.Deleted))
	r.W.AppendRewind(session.Rewind{Code: true, Checkpoint: res.Undo})
	return r.W.Sync()
}

// PendingWarning says, when a rewind of the store was interrupted and
// left the files half restored, how to finish it; "" when none was.
func PendingWarning(store *checkpoint.Store) string {
	if store == nil {
		return ""
	}
	if _, ok := store.Pending(); !ok {
		return ""
	}
	return "ply: warning: a rewind was interrupted and left the files half restored, part as they were and part as rewound. " +
		"`ply rewind --finish` completes it; `ply rewind --undo` then brings back the files as they were, with any work done since. " +
		"A rewind to another prompt replaces it instead, and its undo keeps that work too."
}

// failed is a restore that returned err. One that stopped after its
// first change leaves its journal: it is recorded all the same, for the
// files only, so that Undo can put them back as they were (n is the
// prompt rewound to, 0 for an undo or a finish).
func (r *Rewinder) failed(n int, res checkpoint.RestoreResult, err error) error {
	if _, pending := r.Store.Pending(); !pending || res.Undo == "" {
		return err
	}
	r.W.AppendRewind(session.Rewind{Prompt: n, Code: true, Checkpoint: res.Undo})
	if serr := r.W.Sync(); serr != nil {
		return fmt.Errorf("%w; recording it: %v", err, serr)
	}
	return fmt.Errorf("%w; the files are partly restored: ply rewind --undo puts them back as they were, ply rewind --finish tries again", err)
}

// restore restores checkpoint id and says what it could not do.
func (r *Rewinder) restore(ctx context.Context, id string) (checkpoint.RestoreResult, error) {
	if _, ok := r.Store.Pending(); ok {
		fmt.Fprintln(r.Out, "An interrupted rewind had left the files half restored: this one replaces it, and its undo brings back any work done since.")
	}
	res, err := r.Store.Restore(ctx, id)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return res, fmt.Errorf("the checkpoint is gone (pruned after checkpointing.retentionDays?): %w", err)
	}
	if err != nil {
		return res, err
	}
	if res.Partial {
		fmt.Fprintln(r.Out, "That checkpoint was never recorded whole (ply stopped while recording it): only the files ply changed before then were put back; the others were left as they are.")
	}
	for _, p := range res.NotRestored {
		fmt.Fprintf(r.Out, "Not restored (over the checkpoint size cap, its content was not saved): %s\n", p)
	}
	for _, p := range res.LeftInPlace {
		fmt.Fprintf(r.Out, "Left in place (over the size cap, so deleting or replacing it could not be undone): %s\n", p)
	}
	for _, p := range res.KeptIgnored {
		fmt.Fprintf(r.Out, "Left in place (ignored when the checkpoint was made, so never recorded): %s\n", p)
	}
	return res, nil
}

// clipLine cuts s to n runes, marking a cut.
func clipLine(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// plural is "1 noun" or "n nouns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Point is a prompt a session can be rewound to.
type Point struct {
	N       int // 1 is the session's first prompt
	Time    time.Time
	Prompt  string
	Changed int // files changed since; -1 when unknown
	// Partial is set when the checkpoint was never stored whole (ply
	// stopped while taking it): only the files saved ahead of the batch
	// that changed them are counted, and restored.
	Partial bool
}

// Since says how many files changed since the point's checkpoint ("2
// files changed since", "partial checkpoint, 1 file changed since"); ""
// when that is unknown.
func (p Point) Since() string {
	if p.Changed < 0 {
		return ""
	}
	return changed{n: p.Changed, partial: p.Partial}.String(true)
}

// Result is what a rewind of a running session did.
type Result struct {
	// History is the conversation from now on, when it was rewound.
	History []llm.Message
	// Prompt is the rewound prompt's text, to give back to the user.
	Prompt string
	// Note says what was restored and what could not be.
	Note string
}

// Points lists the session's prompts, oldest first.
func (r *Rewinder) Points(ctx context.Context) []Point {
	to := ""
	if r.Store != nil {
		to = r.current(ctx) // the workspace now
	}
	changes := r.changedTo(to)
	out := make([]Point, len(r.Log.Prompts))
	for i, p := range r.Log.Prompts {
		out[i] = Point{N: p.N, Time: p.Time, Prompt: p.Text, Changed: max(changes[i].n, -1), Partial: changes[i].partial}
	}
	return out
}
