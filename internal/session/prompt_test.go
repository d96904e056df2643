package session

import "testing"

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
