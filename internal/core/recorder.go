package core

import (
	"log/slog"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
)

// record is the session's loop.Recorder: what the transcript holds of a
// loop beside the chat's history, and when it is made durable. Every
// entry layer's loop records through it, so a transcript reads the same
// whichever entry wrote it.
type record struct{ c *Session }

// recorder returns the session's recorder.
func (c *Session) recorder() loop.Recorder { return record{c} }

// Checkpoint makes the transcript durable at a round boundary. Its error
// ends the loop (loop.Unsaved), which each entry reports as a failure.
func (r record) Checkpoint() error {
	err := r.c.sess.w.Sync()
	if err != nil {
		slog.Error("saving the session", "err", err)
	}
	return err
}

// Err is the transcript writer's first error: once a write failed,
// nothing more is written, and a loop ends before it sends anything.
func (r record) Err() error { return r.c.sess.w.Err() }

// Compressed writes the compacted history, which replaces what came
// before it on load.
func (r record) Compressed() { r.c.sess.w.AppendCompaction(r.c.chat.History()) }

// Keep puts results the loop will not send into the history.
func (r record) Keep(parts []llm.Part) {
	if len(parts) > 0 {
		r.c.keepResults(parts)
	}
}

// Cancelled records a cancellation and its reason.
func (r record) Cancelled(reason string) { r.c.sess.w.AppendCancelled(reason) }

// Telemetry is the session's loop.Telemetry; nil when telemetry is off.
func (r record) Telemetry() loop.Telemetry { return r.c.cfg.Telemetry.Session(r.c) }

// Round records a round no user typed.
func (r record) Round(rd inbox.Round) { r.c.recordRound(rd) }
