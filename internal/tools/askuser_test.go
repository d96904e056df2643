package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

const twoQuestions = `{"questions":[
 {"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"Postgres (Recommended)","description":"what prod runs"},{"label":"SQLite","description":"no server"}]},
 {"question":"Which checks?","header":"Checks","multiSelect":true,"options":[{"label":"vet","description":"go vet"},{"label":"lint","description":"staticcheck"},{"label":"race","description":"-race"}]}]}`

type fixedAsker struct {
	got     []Question
	answers []QuestionAnswer
	err     error
}

func (f *fixedAsker) AskQuestions(_ context.Context, qs []Question) ([]QuestionAnswer, error) {
	f.got = qs
	return f.answers, f.err
}

func TestAskUserQuestionWithoutAskerIsRefused(t *testing.T) {
	t.Parallel()
	res, err := NewAskUserQuestion().Execute(context.Background(), json.RawMessage(twoQuestions), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.ErrorType != "NO_USER" || !strings.Contains(res.Output, "best judgement") {
		t.Fatalf("result = %+v, want a NO_USER refusal telling the model to go on", res)
	}
}

func TestAskUserQuestionReturnsAnswers(t *testing.T) {
	t.Parallel()
	tool := NewAskUserQuestion()
	f := &fixedAsker{answers: []QuestionAnswer{{Labels: []string{"SQLite"}}, {Labels: []string{"vet", "race"}, Other: "and gofmt"}}}
	tool.SetAsker(f)
	res, err := tool.Execute(context.Background(), json.RawMessage(twoQuestions), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("error result: %s", res.Output)
	}
	if len(f.got) != 2 || !f.got[1].MultiSelect || len(f.got[1].Options) != 3 {
		t.Fatalf("asker got %+v", f.got)
	}
	for _, want := range []string{`"Which database?": "SQLite"`, `"Which checks?": "vet", "race", in their own words: "and gofmt"`} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if !strings.Contains(res.Display, "DB: \"SQLite\"") {
		t.Errorf("display = %q", res.Display)
	}
}

func TestAskUserQuestionDeclined(t *testing.T) {
	t.Parallel()
	tool := NewAskUserQuestion()
	tool.SetAsker(&fixedAsker{err: ErrQuestionDeclined})
	res, _ := tool.Execute(context.Background(), json.RawMessage(twoQuestions), nil)
	if !res.IsError || res.ErrorType != "QUESTIONS_DECLINED" {
		t.Fatalf("result = %+v", res)
	}
}

func TestAskUserQuestionRunsAlone(t *testing.T) {
	t.Parallel()
	if NewAskUserQuestion().ConcurrencySafe(json.RawMessage(twoQuestions)) {
		t.Fatal("a question must never run in a parallel batch")
	}
}

func TestParseQuestionsRefusesBadShapes(t *testing.T) {
	t.Parallel()
	opt := `{"label":"a","description":""},{"label":"b","description":""}`
	for name, args := range map[string]string{
		"none":          `{"questions":[]}`,
		"five":          `{"questions":[` + strings.Repeat(`{"question":"q?","header":"h","options":[`+opt+`]},`, 4) + `{"question":"q5?","header":"h","options":[` + opt + `]}]}`,
		"one option":    `{"questions":[{"question":"q?","header":"h","options":[{"label":"a","description":""}]}]}`,
		"empty label":   `{"questions":[{"question":"q?","header":"h","options":[{"label":" ","description":""},{"label":"b","description":""}]}]}`,
		"same labels":   `{"questions":[{"question":"q?","header":"h","options":[{"label":"a","description":""},{"label":"a","description":""}]}]}`,
		"long header":   `{"questions":[{"question":"q?","header":"thirteen chars","options":[` + opt + `]}]}`,
		"no text":       `{"questions":[{"question":"","header":"h","options":[` + opt + `]}]}`,
		"not an object": `[1]`,
	} {
		if _, err := ParseQuestions(json.RawMessage(args)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseQuestions(json.RawMessage(twoQuestions)); err != nil {
		t.Fatalf("good questions refused: %v", err)
	}
}

func FuzzParseQuestions(f *testing.F) {
	f.Add(twoQuestions)
	f.Add(`{"questions":[{"question":"q?","header":"h","options":[{"label":"a"},{"label":"b"}]}]}`)
	f.Add(`{"questions":null}`)
	f.Fuzz(func(t *testing.T, s string) {
		qs, err := ParseQuestions(json.RawMessage(s))
		if err != nil {
			return
		}
		if len(qs) < 1 || len(qs) > maxQuestions {
			t.Fatalf("accepted %d questions", len(qs))
		}
		for _, q := range qs {
			if q.Question == "" || len(q.Options) < minQuestionOptions || len(q.Options) > maxQuestionOptions {
				t.Fatalf("accepted %+v", q)
			}
			for _, o := range q.Options {
				if o.Label == "" {
					t.Fatalf("accepted an empty label in %+v", q)
				}
			}
		}
	})
}
