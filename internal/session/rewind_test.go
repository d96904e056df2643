package session

import (
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestPromptsAndRewindMarkers(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	w, err := Create(home, ws, "s-rewind", "m")
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(ck, s string) {
		w.AppendCheckpoint(ck)
		w.Append(user(text("<system-reminder>r</system-reminder>"), text(s)))
		w.Append(model(llm.FinishStop, text("ok "+s)))
	}
	prompt("c1", "first\nsecond line")
	prompt("c2", "two")
	w.AppendCompaction([]llm.Message{user(text("summary"))})
	prompt("c3", "three")
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	log, err := Prompts(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Prompts) != 3 || log.Prompts[0].Text != "first\nsecond line" || log.Prompts[2].Checkpoint != "c3" {
		t.Fatalf("prompts: %+v", log.Prompts)
	}
	// The history before prompt 2 is the one before compression.
	if h := log.Prompts[1].History; len(h) != 2 || h[0].Parts[1].Text != "first\nsecond line" {
		t.Fatalf("history before prompt 2: %+v", h)
	}

	// Rewinding the conversation to prompt 2 truncates what loads.
	w.AppendRewind(Rewind{Prompt: 2, Checkpoint: "undo1", Conversation: true, History: log.Prompts[1].History})
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.History) != 2 || len(tr.Warnings) != 0 {
		t.Fatalf("after rewind: history %d entries, warnings %v", len(tr.History), tr.Warnings)
	}
	log, err = Prompts(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Prompts) != 1 || log.Last == nil || log.Last.Checkpoint != "undo1" || len(log.Last.History) != 3 {
		t.Fatalf("after rewind: %d prompts, last %+v", len(log.Prompts), log.Last)
	}

	// Undoing it brings back the history and the prompts.
	w.AppendRewind(Rewind{Undo: true, Checkpoint: "undo2", Conversation: true, History: log.Last.History})
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if tr, _ = Load(w.Path()); len(tr.History) != 3 {
		t.Fatalf("after undo: %d entries", len(tr.History))
	}
	if log, _ = Prompts(w.Path()); len(log.Prompts) != 3 {
		t.Fatalf("after undo: %d prompts", len(log.Prompts))
	}
	// A code-only rewind leaves the history alone.
	w.AppendRewind(Rewind{Prompt: 1, Checkpoint: "undo3", Code: true})
	w.Close()
	if tr, _ = Load(w.Path()); len(tr.History) != 3 {
		t.Fatalf("after a code-only rewind: %d entries", len(tr.History))
	}
}
