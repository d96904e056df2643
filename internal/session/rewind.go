package session

import (
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// Records of checkpoints and rewinds (package checkpoint holds the files):
//
//	checkpoint  the workspace was recorded before the next user entry: {"checkpoint":"<id>"}
//	rewind      a rewind was done: the prompt rewound to (or "undo":true), the
//	            checkpoint of the state before it, and, when the conversation
//	            was rewound, "history": on load it replaces the history like a
//	            compaction line
const (
	typeCheckpoint = "checkpoint"
	typeRewind     = "rewind"
)

// AppendCheckpoint records that the workspace was saved as checkpoint id
// just before the prompt that follows.
func (w *Writer) AppendCheckpoint(id string) {
	w.appendRecord("checkpoint", struct {
		Type       string    `json:"type"`
		Time       time.Time `json:"time"`
		Checkpoint string    `json:"checkpoint"`
	}{typeCheckpoint, time.Now().UTC(), id})
}

// Rewind describes a rewind for AppendRewind.
type Rewind struct {
	// Prompt is the prompt rewound to (1 is the first), 0 for an undo.
	Prompt int
	// Undo marks the undoing of the last rewind.
	Undo bool
	// Checkpoint is the checkpoint of the workspace before the rewind.
	Checkpoint string
	// Code and Conversation say what was rewound.
	Code, Conversation bool
	// History is the conversation from here on (Conversation only).
	History []llm.Message
}

// AppendRewind records a rewind. With Conversation, its History replaces
// the history on load, as a compaction does.
func (w *Writer) AppendRewind(r Rewind) {
	var h *[]llm.Message
	if r.Conversation {
		if r.History == nil {
			r.History = []llm.Message{}
		}
		h = &r.History
	}
	rec := struct {
		Type         string         `json:"type"`
		Time         time.Time      `json:"time"`
		Prompt       int            `json:"prompt,omitempty"`
		Undo         bool           `json:"undo,omitempty"`
		Checkpoint   string         `json:"checkpoint"`
		Code         bool           `json:"code"`
		Conversation bool           `json:"conversation"`
		History      *[]llm.Message `json:"history,omitempty"`
	}{typeRewind, time.Now().UTC(), r.Prompt, r.Undo, r.Checkpoint, r.Code, r.Conversation, h}
	if h == nil {
		w.appendRecord("rewind", rec)
		return
	}
	w.appendReplacing("rewind", rec, r.History)
}

// Prompt is one user prompt of a session with its checkpoint.
type Prompt struct {
	N          int // 1 is the first
	Time       time.Time
	Text       string // what the user wrote, reminders left out
	Checkpoint string // the workspace just before it
	// History is the conversation just before it, compressions after it
	// not applied: what a rewind of the conversation goes back to.
	History []llm.Message
}

// PromptLog is what a session says about its prompts and rewinds.
type PromptLog struct {
	// Prompts are those of the conversation as it now stands: a rewound
	// conversation has lost the prompts after the one rewound to.
	Prompts []Prompt
	// Last is the newest rewind not undone, or nil.
	Last *LastRewind
}

// LastRewind is what undoing the newest rewind needs.
type LastRewind struct {
	Checkpoint   string        // the workspace before the rewind
	Code         bool          // whether the code was rewound
	Conversation bool          // whether the conversation was rewound
	History      []llm.Message // the conversation before the rewind
	prompts      []Prompt
	prev         *LastRewind
}

// Prompts reads the session at path and returns its prompts, each with
// the checkpoint recorded just before it.
func Prompts(path string) (*PromptLog, error) {
	log := &PromptLog{}
	var pending *Prompt
	_, _, err := replay(path, func(t *Transcript, rec *record) {
		switch rec.Type {
		case typeCheckpoint:
			pending = &Prompt{Time: rec.Time, Checkpoint: rec.Checkpoint, History: t.History[:len(t.History):len(t.History)]}
		case typeEntry:
			if pending == nil || rec.Message == nil || rec.Message.Role != llm.RoleUser {
				return
			}
			if txt := promptText(rec.Message); txt != "" {
				pending.Text = txt
				pending.N = len(log.Prompts) + 1
				log.Prompts = append(log.Prompts, *pending)
			}
			pending = nil
		case typeRewind:
			pending = nil
			if rec.Undo {
				if l := log.Last; l != nil {
					log.Prompts, log.Last = l.prompts, l.prev
				}
				return
			}
			log.Last = &LastRewind{Checkpoint: rec.Checkpoint, Code: rec.Code, Conversation: rec.Conversation,
				History: t.History[:len(t.History):len(t.History)], prompts: log.Prompts, prev: log.Last}
			if rec.Conversation && rec.Prompt >= 1 && rec.Prompt <= len(log.Prompts) {
				log.Prompts = log.Prompts[: rec.Prompt-1 : rec.Prompt-1]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return log, nil
}

// promptText returns the text the user wrote in m, without what ply added
// (system reminders, tool results).
func promptText(m *llm.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if p.Thought || p.Call != nil || p.Response != nil || p.Media != nil {
			continue
		}
		if t := strings.TrimSpace(p.Text); t != "" && !strings.HasPrefix(t, "<system-reminder>") {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
