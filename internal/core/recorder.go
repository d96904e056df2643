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

// Checkpoint saves the transcript at a round boundary, before the round's
// calls run. Before calls that may change something (a tool that is not
// read-only, one not known) and at the end of an interaction (no calls)
// it is made durable (fsync); before a batch that only reads, it is
// written to the file, where a killed process leaves it, and made durable
// with the next: such a batch does nothing a lost line could leave
// unrecorded, and an fsync a round was most of a read-only round's own
// time. Its error ends the loop (loop.Unsaved), which each entry reports
// as a failure.
func (r record) Checkpoint() error {
	var err error
	if r.readsOnly() {
		err = r.c.sess.w.Written()
	} else {
		err = r.c.sess.w.Sync()
	}
	if err != nil {
		slog.Error("saving the session", "err", err)
	}
	return err
}

// readsOnly reports whether the round just recorded asks for calls, all of
// tools that only read.
func (r record) readsOnly() bool {
	reply, ok := r.c.chat.LastReply()
	if !ok {
		return false
	}
	calls := 0
	for _, p := range reply.Parts {
		if p.Call == nil {
			continue
		}
		t, ok := r.c.reg.Lookup(p.Call.Name)
		if !ok || !t.Kind().ReadOnly() {
			return false
		}
		calls++
	}
	return calls > 0
}

// Err is the transcript writer's first error: once a write failed,
// nothing more is written, and a loop ends before it sends anything.
func (r record) Err() error { return r.c.sess.w.Err() }

// Compressed writes the compacted history, which replaces what came
// before it on load.
// The history is read in place: the writer keeps its own copy.
func (r record) Compressed() {
	r.c.chat.ReadHistory(func(h []llm.Message) { r.c.sess.w.AppendCompaction(h) })
}

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
