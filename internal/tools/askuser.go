package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// AskUserQuestionName is the tool the model calls to ask the user
// multiple-choice questions mid-task.
const AskUserQuestionName = "ask_user_question"

// Bounds of one call: a few focused questions, each with a few choices.
const (
	maxQuestions       = 4
	minQuestionOptions = 2
	maxQuestionOptions = 4
	maxQuestionHeader  = 12
	maxQuestionText    = 1000
	maxOptionLabel     = 100
	maxOptionDesc      = 500
)

// QuestionOption is one choice of a question.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Question is one multiple-choice question. The user may always answer
// in their own words instead ("other").
type Question struct {
	Question    string           `json:"question"`
	Header      string           `json:"header"`
	Options     []QuestionOption `json:"options"`
	MultiSelect bool             `json:"multiSelect"`
}

// QuestionAnswer is the user's answer to one question: the labels chosen,
// and Other, text the user typed instead of (or beside) a choice.
type QuestionAnswer struct {
	Labels []string
	Other  string
}

// QuestionAsker puts questions to the user and returns one answer per
// question, in order. An entry layer that has a user to ask provides one;
// ErrQuestionDeclined says the user dismissed the questions.
type QuestionAsker interface {
	AskQuestions(ctx context.Context, qs []Question) ([]QuestionAnswer, error)
}

// ErrQuestionDeclined is what a QuestionAsker returns when the user
// closed the questions without answering.
var ErrQuestionDeclined = errors.New("the user declined to answer")

// AskUserQuestion asks the user through the session's QuestionAsker;
// without one (a run nobody watches) every call is refused with a result
// that tells the model to go on by itself.
type AskUserQuestion struct {
	mu    sync.Mutex
	asker QuestionAsker
}

// NewAskUserQuestion returns the tool with no one to ask yet.
func NewAskUserQuestion() *AskUserQuestion { return &AskUserQuestion{} }

// SetAsker sets who answers; nil means no one.
func (t *AskUserQuestion) SetAsker(a QuestionAsker) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.asker = a
}

func (t *AskUserQuestion) current() QuestionAsker {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.asker
}

func (*AskUserQuestion) Name() string { return AskUserQuestionName }
func (*AskUserQuestion) Description() string {
	return "Ask the user 1-4 multiple-choice questions and wait for the answers, when a decision is theirs (an ambiguous request, a real trade-off) rather than guessing. 2-4 options each; the user can always answer in their own words, so add no \"Other\". Not for tool permissions."
}

// Kind is think: the call changes nothing. It never runs beside other
// calls (ConcurrencySafe), since it waits for the user.
func (*AskUserQuestion) Kind() Kind { return KindThink }

// ConcurrencySafe is false: a question waits for the user, and runs in a
// batch of its own.
func (*AskUserQuestion) ConcurrencySafe(json.RawMessage) bool { return false }

func (*AskUserQuestion) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"questions":{"type":"array","minItems":1,"maxItems":4,"items":{"type":"object","properties":{` +
		`"question":{"type":"string"},"header":{"type":"string","description":"at most 12 characters"},` +
		`"options":{"type":"array","minItems":2,"maxItems":4,"items":{"type":"object","properties":{"label":{"type":"string"},"description":{"type":"string"}},"required":["label","description"],"additionalProperties":false}},` +
		`"multiSelect":{"type":"boolean"}},"required":["question","header","options","multiSelect"],"additionalProperties":false}}},"required":["questions"],"additionalProperties":false}`)
}

// NoUserAnswers says why a question cannot be put in a run nobody
// watches, and what the model should do instead.
const NoUserAnswers = "no user can answer questions in this run (it runs unattended). Do not call " + AskUserQuestionName +
	" again: proceed on your own best judgement and say in your answer which assumptions you made, or, if the task cannot go on without the answer, end your turn stating the question."

// ParseQuestions reads and checks the tool's arguments: 1-4 questions,
// each with a text, a header of at most 12 characters, 2-4 options with
// distinct non-empty labels. The error says what is wrong.
func ParseQuestions(args json.RawMessage) ([]Question, error) {
	var in struct {
		Questions []Question `json:"questions"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("the arguments are not a questions object: %w", err)
	}
	qs := in.Questions
	if len(qs) < 1 || len(qs) > maxQuestions {
		return nil, fmt.Errorf("%d questions: ask 1 to %d", len(qs), maxQuestions)
	}
	seen := map[string]bool{}
	for i := range qs {
		q := &qs[i]
		q.Question, q.Header = strings.TrimSpace(q.Question), strings.TrimSpace(q.Header)
		switch {
		case q.Question == "":
			return nil, fmt.Errorf("question %d has no text", i+1)
		case utf8.RuneCountInString(q.Question) > maxQuestionText:
			return nil, fmt.Errorf("question %d is longer than %d characters", i+1, maxQuestionText)
		case seen[q.Question]:
			return nil, fmt.Errorf("question %d repeats an earlier question", i+1)
		case utf8.RuneCountInString(q.Header) > maxQuestionHeader:
			return nil, fmt.Errorf("question %d: header %q is longer than %d characters", i+1, q.Header, maxQuestionHeader)
		case len(q.Options) < minQuestionOptions || len(q.Options) > maxQuestionOptions:
			return nil, fmt.Errorf("question %d has %d options: give %d to %d (the user can always answer in their own words)", i+1, len(q.Options), minQuestionOptions, maxQuestionOptions)
		}
		seen[q.Question] = true
		labels := map[string]bool{}
		for j := range q.Options {
			o := &q.Options[j]
			o.Label, o.Description = strings.TrimSpace(o.Label), strings.TrimSpace(o.Description)
			switch {
			case o.Label == "":
				return nil, fmt.Errorf("question %d, option %d has no label", i+1, j+1)
			case utf8.RuneCountInString(o.Label) > maxOptionLabel:
				return nil, fmt.Errorf("question %d, option %d: the label is longer than %d characters", i+1, j+1, maxOptionLabel)
			case utf8.RuneCountInString(o.Description) > maxOptionDesc:
				return nil, fmt.Errorf("question %d, option %d: the description is longer than %d characters", i+1, j+1, maxOptionDesc)
			case labels[o.Label]:
				return nil, fmt.Errorf("question %d: two options are labelled %q", i+1, o.Label)
			}
			labels[o.Label] = true
		}
	}
	return qs, nil
}

func (t *AskUserQuestion) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	qs, err := ParseQuestions(args)
	if err != nil {
		return Errorf("INVALID_QUESTIONS", "%v", err), nil
	}
	a := t.current()
	if a == nil {
		return Errorf("NO_USER", "No user can answer: %s", NoUserAnswers), nil
	}
	answers, err := a.AskQuestions(ctx, qs)
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case errors.Is(err, ErrQuestionDeclined):
		return Errorf("QUESTIONS_DECLINED", "The user closed the questions without answering. Do not ask them again now: go on with your best judgement, saying which assumptions you made, or ask in plain text at the end of your turn."), nil
	case err != nil:
		return Errorf("QUESTIONS_FAILED", "The questions could not be put to the user: %v. Go on with your best judgement, saying which assumptions you made.", err), nil
	case len(answers) != len(qs):
		return Errorf("QUESTIONS_FAILED", "The questions could not be put to the user: %d answers came back for %d questions. Go on with your best judgement, saying which assumptions you made.", len(answers), len(qs)), nil
	}
	return Result{Output: FormatAnswers(qs, answers), Display: answerSummary(qs, answers)}, nil
}

// FormatAnswers is the text the model receives: each question with the
// user's answer.
func FormatAnswers(qs []Question, as []QuestionAnswer) string {
	var b strings.Builder
	b.WriteString("The user answered your questions:\n")
	for i, q := range qs {
		fmt.Fprintf(&b, "- %q: %s\n", q.Question, answerText(as[i]))
	}
	b.WriteString("Go on with the task in the light of these answers.")
	return b.String()
}

// answerText is one answer in words.
func answerText(a QuestionAnswer) string {
	var parts []string
	for _, l := range a.Labels {
		parts = append(parts, fmt.Sprintf("%q", l))
	}
	if o := strings.TrimSpace(a.Other); o != "" {
		parts = append(parts, fmt.Sprintf("in their own words: %q", o))
	}
	if len(parts) == 0 {
		return "(no answer)"
	}
	return strings.Join(parts, ", ")
}

// answerSummary is a short line per answer for the user's card.
func answerSummary(qs []Question, as []QuestionAnswer) string {
	var lines []string
	for i, q := range qs {
		name := q.Header
		if name == "" {
			name = q.Question
		}
		lines = append(lines, name+": "+answerText(as[i]))
	}
	return strings.Join(lines, "\n")
}
