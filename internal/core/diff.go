package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/session"
)

// Diff compares the workspace now with the session's first
// checkpoint (taken before its first prompt): what the session changed,
// whether by the model's tools or by hand meanwhile.
func (c *Session) Diff(ctx context.Context) (info.Changes, error) {
	var out info.Changes
	store := c.CheckpointStore()
	if store == nil {
		return out, errors.New("checkpoints are off (settings: checkpointing), so there is nothing to compare with")
	}
	if err := c.sess.w.Sync(); err != nil {
		return out, err
	}
	pl, err := session.Prompts(c.sess.w.Path())
	if err != nil {
		return out, err
	}
	first := ""
	for _, p := range pl.Prompts {
		if p.Checkpoint != "" {
			first = p.Checkpoint
			break
		}
	}
	if first == "" {
		return out, errors.New("no checkpoint yet: the first is taken when you send a prompt")
	}
	res, err := store.Checkpoint(ctx, c.cp.roots) // the roots every checkpoint records
	if err != nil {
		return out, fmt.Errorf("recording the workspace now: %w", err)
	}
	now, err := store.Load(res.ID)
	if err != nil {
		return out, err
	}
	base, partial, err := store.LoadOrSavedAhead(first, now)
	if err != nil {
		return out, fmt.Errorf("loading the session's first checkpoint: %w", err)
	}
	out.Partial = partial
	old, cur := entriesByPath(base), entriesByPath(now)
	for _, ch := range checkpoint.Diff(base, now) {
		fc := info.FileChange{Op: byte(ch.Op), Path: ch.Rel}
		if len(base.Roots) > 1 {
			fc.Path = ch.Path
		}
		var oldOK, newOK bool
		fc.Old, oldOK = entryText(store, old[ch.Path])
		fc.New, newOK = entryText(store, cur[ch.Path])
		fc.NoContent = !oldOK || !newOK
		fc.Binary = isBinary(fc.Old) || isBinary(fc.New)
		out.Files = append(out.Files, fc)
	}
	return out, nil
}

func entriesByPath(m *checkpoint.Manifest) map[string]*checkpoint.Entry {
	out := make(map[string]*checkpoint.Entry, len(m.Entries))
	for i := range m.Entries {
		e := &m.Entries[i]
		out[filepath.Join(m.Roots[e.Root], filepath.FromSlash(e.Rel))] = e
	}
	return out
}

// entryText is an entry's content as text: "" for an absent entry, a
// link as its target; ok false when the content was not kept.
func entryText(s *checkpoint.Store, e *checkpoint.Entry) (string, bool) {
	switch {
	case e == nil:
		return "", true
	case e.Kind == checkpoint.KindLink:
		return "→ " + e.Target + "\n", true
	case e.Kind != checkpoint.KindFile:
		return "", false
	}
	b, err := s.Content(e)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func isBinary(s string) bool { return !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 }
