package session

import (
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// The first prompt record is the system prompt's and the last what the
// model was told last; both survive a compaction, and a transcript
// without any loads with neither.
func TestPromptFactsOnLoad(t *testing.T) {
	_, _, w := newSession(t, "prompt")
	w.Append(user(text("hi")))
	mustClose(t, w)
	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if tr.PromptFacts != nil || tr.LastFacts != nil {
		t.Fatalf("facts in a transcript without any: %s %s", tr.PromptFacts, tr.LastFacts)
	}

	_, _, w = newSession(t, "prompt2")
	w.AppendPromptFacts(map[string]string{"date": "first"})
	w.Append(user(text("hi")))
	w.AppendCompaction(nil)
	w.AppendPromptFacts(map[string]string{"date": "second"})
	mustClose(t, w)
	tr = mustLoad(t, w.Path())
	noWarnings(t, tr)
	if string(tr.PromptFacts) != `{"date":"first"}` || string(tr.LastFacts) != `{"date":"second"}` {
		t.Fatalf("facts %s, last %s", tr.PromptFacts, tr.LastFacts)
	}
}

// A rewind of the conversation may take the notes with it: the facts
// told last are the system prompt's again.
func TestPromptFactsAfterRewind(t *testing.T) {
	_, _, w := newSession(t, "prompt3")
	w.AppendPromptFacts(map[string]string{"date": "first"})
	w.Append(user(text("hi")))
	w.AppendPromptFacts(map[string]string{"date": "second"})
	w.Append(user(text("again")))
	w.AppendRewind(Rewind{Prompt: 1, Conversation: true, History: []llm.Message{user(text("hi"))}})
	mustClose(t, w)
	tr := mustLoad(t, w.Path())
	noWarnings(t, tr)
	if string(tr.LastFacts) != `{"date":"first"}` {
		t.Fatalf("facts told last after a rewind: %s", tr.LastFacts)
	}
}
