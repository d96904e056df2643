package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/rewind"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

// checkpointer records the workspace before each user query (the id goes
// in the transcript, just before the prompt's entry) and before each tool
// batch that may write. A nil checkpointer records nothing.
type checkpointer struct {
	store *checkpoint.Store
	roots []string
	sess  *opened // its writer changes on /resume
	reg   *tools.Registry
	log   *slog.Logger
	off   bool // the workspace proved too large: stop trying
	msgs  messageCheckpoints
	// warned is the last warning about what ignore rules leave out,
	// so that each is logged once.
	warned string
	// notices is told of a prompt that has no checkpoint, and why, and,
	// at the start and before each prompt, when a rewind was interrupted
	// and left the files half restored; warnedOpen is set when it was told at the start and no prompt came
	// since.
	notices    io.Writer
	warnedOpen bool
	// baseline is the first checkpoint, taken in the background from
	// start-up (checkpoint_baseline.go); nil when none was started.
	baseline *baseline
}

// setNotices sets where the warning of a half-done rewind goes, and
// gives it at once.
func (c *checkpointer) setNotices(w io.Writer) {
	if c != nil {
		c.notices = w
		c.warnedOpen = c.warnPending()
	}
}

// warnPending says, when a rewind was interrupted and left the files
// half restored, how to finish it: the session works on a tree that is
// part old, part new. It reports whether it said so.
func (c *checkpointer) warnPending() bool {
	warn := rewind.PendingWarning(c.store)
	if warn == "" || c.notices == nil {
		return false
	}
	fmt.Fprintln(c.notices, warn)
	c.log.Warn("a rewind was left half done")
	return true
}

// OpenCheckpoints opens the checkpoint store of the workspace root.
// A session's store (track) keeps a change tracker, so that a checkpoint
// of an unchanged workspace costs nothing like a scan. Only a trusted
// workspace's .plyignore may leave files git tracks out of checkpoints.
func OpenCheckpoints(home, root string, st settings.Checkpointing, track, trusted bool) (*checkpoint.Store, error) {
	proj, err := session.ProjectDir(home, root)
	if err != nil {
		return nil, err
	}
	return checkpoint.Open(filepath.Join(home, "checkpoints", filepath.Base(proj)), checkpoint.Options{MaxFileBytes: st.MaxFile(), Track: track, TrustPlyIgnore: trusted})
}

// newCheckpointer returns the checkpointer of a session, or nil when
// checkpointing is off or there is no PLY_HOME to keep checkpoints in.
func newCheckpointer(cfg *Config, ws *tools.Workspace, sess *opened, reg *tools.Registry, notices io.Writer, log *slog.Logger) *checkpointer {
	st := cfg.Settings.Checkpointing
	if !st.IsEnabled() || cfg.Home == "" {
		return nil
	}
	store, err := OpenCheckpoints(cfg.Home, ws.Root(), st, true, cfg.Trusted)
	if err != nil {
		log.Warn("checkpoints are off: opening the store failed", "err", err)
		return nil
	}
	c := &checkpointer{store: store, roots: ws.Roots(), sess: sess, reg: reg, log: log, notices: notices}
	c.startBaseline(func() { pruneDaily(store, st.Retention(), log) })
	return c
}

// pruneDaily removes checkpoints past their retention, at most once a day
// (a stamp file records the last time).
func pruneDaily(store *checkpoint.Store, days int, log *slog.Logger) {
	stamp := filepath.Join(store.Dir(), "pruned")
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < 24*time.Hour {
		return
	}
	os.WriteFile(stamp, nil, 0o600)
	now := time.Now()
	os.Chtimes(stamp, now, now)
	if n, err := store.Prune(now.AddDate(0, 0, -days)); err != nil {
		log.Warn("pruning old checkpoints", "err", err)
	} else if n > 0 {
		log.Info("pruned old checkpoints", "removed", n)
	}
}

// close stops the baseline and releases the store's change tracker.
func (c *checkpointer) close() {
	if c != nil {
		c.stopBaseline()
		c.store.Close()
	}
}

// take records the workspace and returns the checkpoint's id; after the
// workspace proved too large, it records nothing and returns "". A
// failure is logged and returned, never fatal: the work goes on without
// a way back.
func (c *checkpointer) take(ctx context.Context, why string) (string, error) {
	return c.takeAs(ctx, why, "")
}

// takeAs is take under id, reserved beforehand, when it is not empty.
func (c *checkpointer) takeAs(ctx context.Context, why, id string) (string, error) {
	if c.off {
		return "", nil
	}
	start := time.Now()
	var r checkpoint.Result
	var err error
	if id != "" {
		r, err = c.store.CheckpointAs(ctx, c.roots, id)
	} else {
		r, err = c.store.Checkpoint(ctx, c.roots)
	}
	if errors.Is(err, checkpoint.ErrTooLarge) {
		c.off = true
	}
	if err != nil {
		c.log.Warn("recording a checkpoint", "why", why, "err", err)
		return "", err
	}
	c.log.Debug("checkpoint", "why", why, "id", r.ID, "files", r.Files, "read", r.Read, "reused", r.Reused, "took", time.Since(start))
	if len(r.Problems) > 0 {
		c.log.Warn("checkpoint left out what it could not read", "problems", r.Problems)
	}
	if len(r.Skipped) > 0 {
		c.log.Info("files over the checkpoint size cap were not saved", "files", r.Skipped)
	}
	if w := r.IgnoreWarning(); w != "" && w != c.warned {
		c.warned = w
		c.log.Warn(w)
	}
	if r.PlyIgnoreOverruled > 0 {
		c.log.Info("the untrusted workspace's .plyignore was not applied to paths git tracks: they are recorded", "paths", r.PlyIgnoreOverruled)
	}
	return r.ID, nil
}

// onUserQuery is the client's OnUserQuery: it records the workspace and
// notes the checkpoint in the transcript before the prompt's entry.
func (c *checkpointer) onUserQuery(ctx context.Context, parts []llm.Part) []llm.Part {
	if c == nil {
		return parts
	}
	if !c.warnedOpen { // said at the start, just before this first prompt
		c.warnPending()
	}
	c.warnedOpen = false
	// While the baseline is being taken, it is the prompt's checkpoint,
	// and the prompt does not wait for it, unless files were written
	// since it began (saved ahead of it): the prompt then waits, and
	// records its own.
	id, err := c.nameBaseline(), error(nil)
	if id == "" {
		if c.waitBaseline(ctx) {
			id, err = c.take(ctx, "prompt")
		} else {
			err = ctx.Err()
		}
	}
	if err != nil && c.notices != nil {
		// Said on every prompt it is true of: the user relies on
		// /rewind to undo what the prompt's tools change.
		fmt.Fprintf(c.notices, "ply: warning: this prompt has no checkpoint, /rewind cannot return to before it: %v\n", err)
	}
	if id != "" {
		c.sess.w.AppendCheckpoint(id)
	}
	c.noteQuery(id)
	return parts
}

// beforeTools records the workspace when the batch holds a call that may
// write. A batch of read-only calls costs one registry lookup per call.
// While the session's first checkpoint is being taken, a batch whose
// writes all name their files saves those ahead of it and goes on
// (saveAhead); any other waits for it.
func (c *checkpointer) beforeTools(ctx context.Context, calls []*turn.ToolCallRequest) {
	if call := c.firstWrite(calls); call != nil && !c.saveAhead(ctx, calls) {
		if c.waitBaseline(ctx) {
			c.take(ctx, fmt.Sprintf("before %s", call.Name)) // a failure is logged
		}
	}
}

// beforeWrite waits for the session's first checkpoint before a batch
// that may write, where no checkpoint is taken before batches (ACP): a
// prompt may name it, and it must hold the files as they were before.
// As in beforeTools, a batch whose writes name their files saves those
// ahead of it instead.
func (c *checkpointer) beforeWrite(ctx context.Context, calls []*turn.ToolCallRequest) {
	if c.firstWrite(calls) != nil && !c.saveAhead(ctx, calls) {
		c.waitBaseline(ctx)
	}
}

// saveAhead saves, while the first checkpoint is being taken, the files
// the batch's calls will write into it (checkpoint.Store.SaveAhead), so
// that the batch need not wait for the rest of the tree. It reports
// whether it did: false when there is no first checkpoint being taken,
// or when a call may write what its arguments do not name (a shell
// command: the whole checkpoint is waited for), or the save failed. The
// batch then has no checkpoint of its own: the first one, when stored,
// holds the files as they were before it.
func (c *checkpointer) saveAhead(ctx context.Context, calls []*turn.ToolCallRequest) bool {
	id := c.pendingBaseline()
	if id == "" {
		return false
	}
	var paths []string
	for _, call := range calls {
		t, ok := c.reg.Lookup(call.Name)
		if !ok || t.Kind().ReadOnly() {
			continue
		}
		pw, ok := t.(tools.PathWriter)
		if !ok {
			return false
		}
		ps, ok := pw.WritePaths(json.RawMessage(call.Args))
		if !ok {
			return false
		}
		paths = append(paths, ps...)
	}
	// From here a prompt cannot name the first checkpoint as the state
	// before it: files changed since it began.
	c.baseline.named.Store(true)
	c.baseline.wroteAhead.Store(true)
	if err := c.store.SaveAhead(ctx, c.roots, id, paths); err != nil {
		c.log.Warn("saving the files a batch writes ahead of the first checkpoint", "err", err)
		return false
	}
	return true
}

// firstWrite is the first call of calls that may write; nil when none
// may, or when checkpoints are off (c nil).
func (c *checkpointer) firstWrite(calls []*turn.ToolCallRequest) *turn.ToolCallRequest {
	if c == nil {
		return nil
	}
	for _, call := range calls {
		if t, ok := c.reg.Lookup(call.Name); ok && !t.Kind().ReadOnly() {
			return call
		}
	}
	return nil
}
