package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

func textOf(m llm.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// A user query sent on a later day than the model last saw carries a
// reminder of the new date; one on the same day does not, and nor does a
// tool result.
func TestDateReminderWhenTheDayChanged(t *testing.T) {
	loc := time.FixedZone("test", 2*3600)
	start := time.Date(2026, 12, 3, 23, 50, 0, 0, loc)
	now := start
	say := func(t string) []llm.Chunk { return []llm.Chunk{{Text: t, FinishReason: llm.FinishStop}} }
	s := &replies{r: [][]llm.Chunk{say("a."), say("b."), say("c."), say("d.")}}
	c := New(s, Options{Clock: func() time.Time { return now }, DateShown: start})
	send := func(typ SendType, p string) string {
		for range c.SendMessageStream(context.Background(), []llm.Part{{Text: p}}, typ) {
		}
		return textOf(s.sent[len(s.sent)-1])
	}
	if got := send(UserQuery, "first"); strings.Contains(got, "system-reminder") {
		t.Fatalf("same day, got a reminder: %q", got)
	}
	now = start.Add(20 * time.Minute) // past midnight
	if got := send(ToolResult, "results"); strings.Contains(got, "system-reminder") {
		t.Fatalf("a tool result got a reminder: %q", got)
	}
	got := send(UserQuery, "second")
	want := "<system-reminder>The date is now Friday, 4 December 2026.</system-reminder>"
	if !strings.Contains(got, want) || !strings.HasPrefix(got, "second") {
		t.Fatalf("after midnight: %q, want the prompt then %q", got, want)
	}
	if got := send(UserQuery, "third"); strings.Contains(got, "system-reminder") {
		t.Fatalf("the new date was already given, got it again: %q", got)
	}
}
