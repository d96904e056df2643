package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/plyhq/ply/internal/tools"
)

// questionMsg puts the model's questions (ask_user_question) to the user;
// the answers go to reply, which has room for them.
type questionMsg struct {
	qs    []tools.Question
	reply chan questionReply
}

type questionReply struct {
	answers []tools.QuestionAnswer
	err     error
}

// questionDialog is the open questions dialog: one question at a time, its
// options and a last row where the user types an answer of their own.
type questionDialog struct {
	qs      []tools.Question
	reply   chan questionReply
	cur     int    // the question shown
	row     int    // the highlighted row; len(options) is "other"
	chosen  []bool // multi-select: the options ticked
	typing  bool   // the "other" row takes keys
	other   []rune // what the user typed there
	answers []tools.QuestionAnswer
}

// AskQuestions shows the questions and waits for the answers or for ctx.
// It implements tools.QuestionAsker.
func (u *UI) AskQuestions(ctx context.Context, qs []tools.Question) ([]tools.QuestionAnswer, error) {
	u.mu.Lock()
	running := u.prog != nil
	u.mu.Unlock()
	if !running {
		return nil, errors.New("the interactive UI is not running")
	}
	reply := make(chan questionReply, 1)
	u.send(questionMsg{qs: qs, reply: reply})
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-reply:
		return r.answers, r.err
	}
}

// openQuestion opens the dialog; a second set of questions while one is
// open is refused (the scheduler runs a question alone, so only a bug
// gets here).
func (m *model) openQuestion(msg questionMsg) {
	if m.question != nil {
		msg.reply <- questionReply{err: errors.New("another question is open")}
		return
	}
	m.question = &questionDialog{qs: msg.qs, reply: msg.reply}
	m.question.reset()
}

func (q *questionDialog) reset() {
	q.row, q.typing, q.other = 0, false, nil
	q.chosen = make([]bool, len(q.qs[q.cur].Options))
}

// closeQuestion answers the dialog with err and closes it.
func (m *model) closeQuestion(err error) {
	if m.question == nil {
		return
	}
	m.question.reply <- questionReply{err: err}
	m.question = nil
}

// questionKey handles a key while the dialog is open.
func (m *model) questionKey(k tea.KeyPressMsg) tea.Cmd {
	q := m.question
	opts := q.qs[q.cur].Options
	s := k.String()
	if q.typing {
		switch s {
		case "esc":
			q.typing = false
		case "enter":
			if strings.TrimSpace(string(q.other)) != "" {
				return m.answerQuestion()
			}
		case "backspace":
			if n := len(q.other); n > 0 {
				q.other = q.other[:n-1]
			}
		case "space":
			q.other = append(q.other, ' ')
		default:
			if t := k.Text; t != "" {
				q.other = append(q.other, []rune(sanitize(t))...)
			}
		}
		return nil
	}
	switch s {
	case "esc":
		m.closeQuestion(tools.ErrQuestionDeclined)
	case "up", "k":
		q.row = (q.row + len(opts)) % (len(opts) + 1)
	case "down", "j", "tab":
		q.row = (q.row + 1) % (len(opts) + 1)
	case "space":
		if q.qs[q.cur].MultiSelect && q.row < len(opts) {
			q.chosen[q.row] = !q.chosen[q.row]
		}
	case "enter":
		if q.row == len(opts) {
			q.typing = true
			return nil
		}
		if !q.qs[q.cur].MultiSelect || !anyTrue(q.chosen) {
			q.chosen[q.row] = true
		}
		return m.answerQuestion()
	default:
		if len(s) != 1 {
			return nil
		}
		if n := int(s[0]) - '0'; n >= 1 && n <= len(opts)+1 {
			q.row = n - 1
			if n == len(opts)+1 {
				q.typing = true
				return nil
			}
			if q.qs[q.cur].MultiSelect {
				q.chosen[q.row] = !q.chosen[q.row]
				return nil
			}
			q.chosen[q.row] = true
			return m.answerQuestion()
		}
	}
	return nil
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// answerQuestion takes the shown question's answer and shows the next
// one, or sends them all after the last.
func (m *model) answerQuestion() tea.Cmd {
	q := m.question
	var a tools.QuestionAnswer
	for i, on := range q.chosen {
		if on {
			a.Labels = append(a.Labels, q.qs[q.cur].Options[i].Label)
		}
	}
	a.Other = strings.TrimSpace(string(q.other))
	q.answers = append(q.answers, a)
	if q.cur++; q.cur < len(q.qs) {
		q.reset()
		return nil
	}
	q.reply <- questionReply{answers: q.answers}
	m.question = nil
	return nil
}

// renderQuestion draws the dialog.
func (m *model) renderQuestion() string {
	q := m.question
	qu := q.qs[q.cur]
	w := m.dialogWidth()
	var lines []string
	head := "? "
	if qu.Header != "" {
		head += m.st.bold.Render(sanitize(qu.Header)) + " · "
	}
	if len(q.qs) > 1 {
		head += m.st.dim.Render(fmt.Sprintf("(%d of %d) ", q.cur+1, len(q.qs)))
	}
	lines = append(lines, strings.Split(ansi.Wrap(head+sanitize(qu.Question), w, " "), "\n")...)
	for i, o := range qu.Options {
		mark := "  "
		if i == q.row && !q.typing {
			mark = "› "
		}
		box := ""
		if qu.MultiSelect {
			box = "[ ] "
			if q.chosen[i] {
				box = "[x] "
			}
		}
		line := fmt.Sprintf("%s%d. %s%s", mark, i+1, box, sanitize(o.Label))
		if o.Description != "" {
			line += "  " + m.st.dim.Render(sanitize(o.Description))
		}
		lines = append(lines, strings.Split(ansi.Wrap(line, w, " "), "\n")...)
	}
	mark := "  "
	if q.row == len(qu.Options) {
		mark = "› "
	}
	other := m.st.dim.Render("type an answer of your own")
	if q.typing || len(q.other) > 0 {
		other = string(q.other)
		if q.typing {
			other += "▏"
		}
	}
	lines = append(lines, strings.Split(ansi.Wrap(fmt.Sprintf("%s%d. Other: %s", mark, len(qu.Options)+1, other), w, " "), "\n")...)
	help := "↑↓ move · enter choose · esc skip the questions"
	switch {
	case q.typing:
		help = "enter send · esc back to the options"
	case qu.MultiSelect:
		help = "↑↓ move · space tick · enter send · esc skip the questions"
	}
	lines = append(lines, m.st.dim.Render(help))
	return m.st.dialog.Width(max(m.width-2, 20)).Render(strings.Join(lines, "\n"))
}
