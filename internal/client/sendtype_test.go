package client

import (
	"context"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// The rounds a timer, a background task or a teammate starts are top-level:
// the loop guard starts afresh and the date is checked, as for a user
// query; the user-prompt callback (hooks, snapshots) runs for a user query
// only.
func TestTopLevelSendTypes(t *testing.T) {
	for _, typ := range []SendType{Cron, Notification, Teammate} {
		t.Run(typ.String(), func(t *testing.T) {
			s := &replies{r: [][]llm.Chunk{{{Text: "ok", FinishReason: llm.FinishStop}}}}
			g := &countGuard{}
			prompted := 0
			day := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
			c := New(s, Options{Loop: g,
				OnUserQuery: func(_ context.Context, p []llm.Part) ([]llm.Part, error) { prompted++; return p, nil },
				Clock:       func() time.Time { return day }, DateShown: day.AddDate(0, 0, -1)})
			for range c.SendMessageStream(context.Background(), []llm.Part{{Text: "fired"}}, typ) {
			}
			if g.resets != 1 {
				t.Errorf("%s: loop guard reset %d times, want 1", typ, g.resets)
			}
			if prompted != 0 {
				t.Errorf("%s: the user-prompt callback ran", typ)
			}
			if len(s.sent) != 1 || len(s.sent[0].Parts) != 2 || s.sent[0].Parts[0].Text != "fired" {
				t.Fatalf("%s: sent %+v, want the content and a date reminder", typ, s.sent)
			}
			if !typ.TopLevel() || typ.UserPrompt() {
				t.Errorf("%s: TopLevel %v UserPrompt %v", typ, typ.TopLevel(), typ.UserPrompt())
			}
		})
	}
	if !UserQuery.TopLevel() || !UserQuery.UserPrompt() || ToolResult.TopLevel() || Hook.UserPrompt() {
		t.Error("UserQuery is a top-level user prompt; ToolResult is not top-level; Hook is no user prompt")
	}
	if Cron.String() != "cron" || Teammate.String() != "teammate" || Notification.String() != "notification" {
		t.Error("names")
	}
}
