package session

import "time"

// typePrompt records what the system prompt said that held only when it
// was built (the date, the repository snapshot), so that a resumed
// session can show the same prompt.
const typePrompt = "prompt"

// AppendPromptFacts records facts (any JSON value) the model was told:
// the first such record holds those of the session's system prompt, and
// a later one what a note on resuming told it since.
func (w *Writer) AppendPromptFacts(facts any) {
	w.appendRecord("prompt facts", struct {
		Type  string    `json:"type"`
		Time  time.Time `json:"time"`
		Facts any       `json:"facts"`
	}{typePrompt, time.Now().UTC(), facts})
}

// applyPrompt keeps the first and the last facts recorded.
func (t *Transcript) applyPrompt(rec *record, line int) {
	if len(rec.Facts) == 0 || string(rec.Facts) == "null" {
		t.warn(line, "prompt record without facts skipped")
		return
	}
	if t.PromptFacts == nil {
		t.PromptFacts = rec.Facts
	}
	t.LastFacts = rec.Facts
}
