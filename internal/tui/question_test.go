package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/tools"
)

var testQuestions = []tools.Question{
	{Question: "Which database?", Header: "DB", Options: []tools.QuestionOption{
		{Label: "Postgres", Description: "what production runs"}, {Label: "SQLite", Description: "no server"}}},
	{Question: "Which checks?", Header: "Checks", MultiSelect: true, Options: []tools.QuestionOption{
		{Label: "vet", Description: "go vet"}, {Label: "lint", Description: "staticcheck"}, {Label: "race", Description: "the race detector"}}},
}

func openQuestions(t *testing.T) (*harness, chan questionReply) {
	t.Helper()
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	reply := make(chan questionReply, 1)
	h.update(questionMsg{qs: testQuestions, reply: reply})
	return h, reply
}

func questionAnswered(t *testing.T, reply chan questionReply) questionReply {
	t.Helper()
	select {
	case r := <-reply:
		return r
	default:
		t.Fatal("the dialog did not answer")
		return questionReply{}
	}
}

// TestQuestionDialogAnswers: the first question is answered with a digit,
// the second (multiple choice) by ticking two options and typing an
// answer of the user's own; the answers come back in order.
func TestQuestionDialogAnswers(t *testing.T) {
	h, reply := openQuestions(t)
	v := h.view()
	for _, want := range []string{"DB", "Which database?", "1. Postgres", "what production runs", "2. SQLite", "3. Other", "(1 of 2)"} {
		if !strings.Contains(v, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Type a message") {
		t.Errorf("the prompt editor shows under the dialog:\n%s", v)
	}
	h.typeText("2")
	if v := h.view(); !strings.Contains(v, "Which checks?") || !strings.Contains(v, "[ ] 1. vet") && !strings.Contains(v, "1. [ ] vet") {
		t.Fatalf("the second question is not shown:\n%s", v)
	}
	h.update(tea.KeyPressMsg{Code: ' ', Text: " "}) // tick vet
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyDown, 0)
	h.update(tea.KeyPressMsg{Code: ' ', Text: " "}) // tick race
	if v := h.view(); !strings.Contains(v, "[x] vet") || !strings.Contains(v, "[x] race") || strings.Contains(v, "[x] lint") {
		t.Fatalf("ticks not shown:\n%s", v)
	}
	h.typeText("4") // the "other" row
	h.typeText("and gofmt")
	h.press(tea.KeyEnter, 0)
	r := questionAnswered(t, reply)
	if r.err != nil || len(r.answers) != 2 {
		t.Fatalf("reply = %+v", r)
	}
	if !slices.Equal(r.answers[0].Labels, []string{"SQLite"}) || r.answers[0].Other != "" {
		t.Errorf("first answer = %+v", r.answers[0])
	}
	if !slices.Equal(r.answers[1].Labels, []string{"vet", "race"}) || r.answers[1].Other != "and gofmt" {
		t.Errorf("second answer = %+v", r.answers[1])
	}
	if h.m.question != nil {
		t.Error("the dialog stayed open")
	}
	if !strings.Contains(h.view(), "Type a message") {
		t.Errorf("the editor did not come back:\n%s", h.view())
	}
}

// TestQuestionDialogEscDeclines: Esc closes the dialog and says the user
// declined, without stopping the interaction.
func TestQuestionDialogEscDeclines(t *testing.T) {
	h, reply := openQuestions(t)
	h.press(tea.KeyEscape, 0)
	if r := questionAnswered(t, reply); !errors.Is(r.err, tools.ErrQuestionDeclined) {
		t.Fatalf("reply = %+v, want declined", r)
	}
	if h.m.cancelling {
		t.Error("Esc on the questions stopped the interaction")
	}
}

// TestQuestionDialogEnterChoosesHighlighted: arrows move, Enter takes the
// highlighted option.
func TestQuestionDialogEnterChoosesHighlighted(t *testing.T) {
	h, reply := openQuestions(t)
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyEnter, 0) // SQLite
	h.press(tea.KeyEnter, 0) // nothing ticked: the highlighted vet
	r := questionAnswered(t, reply)
	if r.err != nil || r.answers[0].Labels[0] != "SQLite" || !slices.Equal(r.answers[1].Labels, []string{"vet"}) {
		t.Fatalf("reply = %+v", r)
	}
}

// TestQuestionDialogClosesWithInteraction: questions still open when the
// interaction ends (cancelled while they were being sent) do not stay on
// screen.
func TestQuestionDialogClosesWithInteraction(t *testing.T) {
	h, reply := openQuestions(t)
	h.update(doneMsg{id: 1, cancelled: true})
	if h.m.question != nil {
		t.Fatal("the dialog outlived its interaction")
	}
	if r := questionAnswered(t, reply); r.err == nil {
		t.Fatalf("reply = %+v, want an error", r)
	}
	if !strings.Contains(h.view(), "Type a message") {
		t.Fatalf("the editor did not come back:\n%s", h.view())
	}
}
