package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/google/uuid"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/repair"
	"github.com/plyhq/ply/internal/resume"
	"github.com/plyhq/ply/internal/session"
)

// opened is a session ready to run: its transcript writer, the history
// to start from, and how the first round goes out.
type opened struct {
	id      string
	w       *session.Writer
	history []llm.Message
	// first is the first round's content and type.
	first     []llm.Part
	firstType client.SendType
	// todos is the task list recorded last (a JSON array), or nil.
	todos json.RawMessage
	// lost says what background work the last process lost, when it
	// could not go with the first round (a Retry resend): it is
	// delivered as a notification after it.
	lost string
	// tasks is how many background tasks the session started before.
	tasks int
	// schedresume: the schedules the transcript left active, how many
	// it ever created, and their recorder (schedresume.go).
	schedules []session.Schedule
	schedN    int
	schedRes  *schedResume
	// facts are the recorded facts of the session's system prompt and
	// told those the model was told last (prompt.go); nil when the
	// transcript has none. note, when not "", tells the model what
	// changed since, with its first message; noteFacts are recorded
	// when it goes.
	facts, told json.RawMessage
	note        string
	noteFacts   *promptFacts
	// created: this run created the session (neither resumed nor
	// forked); if it never gets a prompt it is not kept (closeSession).
	created bool
}

// openSession creates a new session, or loads the one --continue or
// --resume names and decides how to resume it.
func openSession(cfg *Config, root string, log *slog.Logger, stderr io.Writer) (*opened, int, error) {
	prompt := []llm.Part(nil)
	// The interactive UI submits -i's prompt itself, as if typed.
	if cfg.Prompt != "" && !cfg.Interactive {
		prompt = []llm.Part{{Text: cfg.Prompt}}
	}
	id := cfg.SessionID
	if id == "" {
		id = uuid.NewString()
	} else if _, err := uuid.Parse(id); err != nil {
		return nil, 42, fmt.Errorf("--session-id %q is not a UUID", id)
	}
	if !cfg.Continue && cfg.Resume == "" {
		w, err := session.CreateIn(cfg.Home, root, id, cfg.Model, cfg.Worktree)
		if err != nil {
			return nil, 1, fmt.Errorf("creating the session transcript: %w", err)
		}
		return &opened{id: id, w: w, first: prompt, firstType: client.UserQuery, created: true}, 0, nil
	}
	var sum session.Summary
	var err error
	if cfg.Continue {
		sum, err = session.Latest(cfg.Home, root)
	} else {
		sum, err = session.Find(cfg.Home, root, cfg.Resume)
	}
	if err != nil {
		return nil, 42, fmt.Errorf("finding the session to resume: %w", err)
	}
	var w *session.Writer
	var tr *session.Transcript
	if cfg.Fork {
		w, tr, err = session.Fork(cfg.Home, root, sum.Path, id, cfg.Model)
		if err != nil {
			return nil, 1, fmt.Errorf("copying session %s: %w", sum.ID, err)
		}
		fmt.Fprintf(stderr, "ply: session %s is a copy of %s\n", id, sum.ID)
		log.Info("forked", "from", sum.ID, "session", id)
	} else if w, tr, err = session.Open(sum.Path); err != nil {
		var held *session.HeldError
		if errors.As(err, &held) {
			return nil, 42, heldError(held)
		}
		return nil, 1, fmt.Errorf("opening session %s: %w", sum.ID, err)
	}
	for _, warn := range tr.Warnings {
		fmt.Fprintf(stderr, "ply: warning: %s\n", warn)
		log.Warn("transcript", "warning", warn.String())
	}
	h, rep := repair.RepairWith(tr.History, repair.Options{SkipTrailing: true})
	if rep.Changed() {
		log.Warn("repaired the loaded history", "report", rep.String())
	}
	op := &opened{id: tr.Meta.ID, w: w, history: h, todos: tr.Todos, facts: tr.PromptFacts, told: tr.LastFacts}
	lost := lostWork(tr, w)
	op.tasks = len(tr.Background)
	op.schedules, op.schedN = tr.Schedules, tr.ScheduleCount
	warnSchedulesNotRestored(cfg, tr, stderr)
	in := resume.Classify(h)
	log.Info("resuming", "session", op.id, "class", in.Kind.String(), "entries", len(h))
	switch in.Kind {
	case resume.InterruptedTurn:
		// Answer the calls lost with the process (a batch cut short while
		// ply lived kept its results), then the new prompt, in
		// one user entry: results before text.
		var parts []llm.Part
		for _, c := range in.Dangling {
			parts = append(parts, repair.LostResponse(c))
		}
		op.first = append(parts, prompt...)
		op.firstType = client.ToolResult
		if len(prompt) > 0 {
			op.firstType = client.UserQuery
		}
		if len(op.first) == 0 {
			// Every call was answered but no reply came: resend.
			op.firstType = client.Retry
		}
	case resume.InterruptedPrompt:
		if len(prompt) == 0 {
			// The saved prompt is resent as it stands: no duplicate.
			op.firstType = client.Retry
		} else {
			op.first, op.firstType = prompt, client.UserQuery
		}
	case resume.InterruptedReply:
		if len(prompt) == 0 && !cfg.PromptLater {
			prompt = []llm.Part{{Text: "Please continue."}}
		}
		op.first, op.firstType = prompt, client.UserQuery
	default:
		if len(prompt) == 0 && (cfg.StreamInput || cfg.PromptLater) {
			// The SDK's resume and forkSession send the prompt as a
			// user message on stdin, and an ACP session's comes later:
			// wait for it.
			tellLost(op, lost)
			return op, 0, nil
		}
		if len(prompt) == 0 && lost != "" {
			op.first, op.firstType = []llm.Part{{Text: lost}}, client.Notification
			w.AppendRound(client.Notification.String(), "resume")
			return op, 0, nil
		}
		if len(prompt) == 0 {
			if cfg.Fork {
				// Nothing would be added to the copy: do not keep it.
				session.Discard(w)
			} else {
				w.Close()
			}
			return nil, 42, errors.New("the session ended cleanly: give a prompt to go on with it")
		}
		op.first, op.firstType = prompt, client.UserQuery
	}
	tellLost(op, lost)
	return op, 0, nil
}

// heldError is the message for a session another process is writing.
func heldError(h *session.HeldError) error {
	who := "another ply process"
	if h.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", h.PID)
	}
	return fmt.Errorf("session %s is open in %s; two processes writing one session would mix their conversations. "+
		"Wait for it to finish, or go on from a copy of it with: ply -r %s --fork-session", h.ID, who, h.ID)
}
