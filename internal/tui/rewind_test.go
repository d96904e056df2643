package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/llm"
)

func TestRewindPicker(t *testing.T) {
	type call struct {
		n          int
		code, conv bool
	}
	cases := []struct {
		name  string
		keys  []rune // after /rewind: moves and Enters
		want  *call
		input string
	}{
		{"code and conversation", []rune{tea.KeyDown, tea.KeyEnter, tea.KeyEnter}, &call{1, true, true}, "first prompt"},
		{"code only", []rune{tea.KeyEnter, tea.KeyDown, tea.KeyEnter}, &call{2, true, false}, ""},
		{"conversation only", []rune{tea.KeyEnter, tea.KeyDown, tea.KeyDown, tea.KeyEnter}, &call{2, false, true}, "second prompt"},
		{"cancel", []rune{tea.KeyEnter, tea.KeyDown, tea.KeyDown, tea.KeyDown, tea.KeyEnter}, nil, ""},
		{"undo", []rune{tea.KeyUp, tea.KeyUp, tea.KeyEnter}, &call{0, true, true}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			var got *call
			h.m.cfg.Session = &rewindSession{
				rewinds: func() ([]RewindPoint, error) {
					// Oldest first, as the session lists them; the picker
					// shows them newest first.
					return []RewindPoint{{N: 1, Prompt: "first prompt", Changed: 3}, {N: 2, Prompt: "second prompt", Changed: 0}}, nil
				},
				canUndo: true,
				rewind: func(n int, code, conv bool) (RewindResult, error) {
					got = &call{n, code, conv}
					r := RewindResult{Note: "restored 3 files"}
					if conv && n > 0 {
						r.Prompt = map[int]string{1: "first prompt", 2: "second prompt"}[n]
						r.History = []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "earlier question"}}}}
					}
					return r, nil
				},
			}
			h.typeText("/rewind")
			h.press(tea.KeyEnter, 0)
			v := h.view()
			if i, j := strings.Index(v, "second prompt"), strings.Index(v, "first prompt"); i < 0 || j < 0 || i > j || !strings.Contains(v, "undo the last rewind") {
				t.Fatalf("picker not newest first with the undo entry:\n%s", v)
			}
			// Undo is listed first; start on the newest prompt.
			for _, k := range c.keys {
				h.press(k, 0)
			}
			if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
				t.Fatalf("Rewind called with %+v, want %+v", got, c.want)
			}
			if h.m.picker != nil {
				t.Fatalf("picker still open:\n%s", h.view())
			}
			if v := h.m.input.Value(); v != c.input {
				t.Errorf("input box = %q, want %q", v, c.input)
			}
			if c.want != nil && !strings.Contains(h.printed(), "restored 3 files") {
				t.Errorf("the result was not shown:\n%s", h.printed())
			}
		})
	}
}

func TestEscTwiceOnEmptyInputOpensRewind(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.cfg.Session = &rewindSession{
		rewinds: func() ([]RewindPoint, error) { return []RewindPoint{{N: 1, Prompt: "only prompt"}}, nil },
		rewind:  func(int, bool, bool) (RewindResult, error) { return RewindResult{}, nil },
	}
	h.press(tea.KeyEscape, 0)
	if h.m.picker != nil {
		t.Fatal("one Esc opened the picker")
	}
	h.press(tea.KeyEscape, 0)
	if h.m.picker == nil || !strings.Contains(h.view(), "only prompt") {
		t.Fatalf("Esc Esc on an empty input did not open /rewind:\n%s", h.view())
	}
	h.press(tea.KeyEscape, 0) // closes it
	h.typeText("x")
	h.press(tea.KeyEscape, 0)
	h.press(tea.KeyEscape, 0)
	if h.m.picker != nil {
		t.Fatal("Esc Esc with text in the input opened the picker")
	}
}

// rewindSession is a session that rewinds as the test says.
type rewindSession struct {
	session
	rewinds func() ([]RewindPoint, error)
	rewind  func(n int, code, conv bool) (RewindResult, error)
	canUndo bool
}

func (s *rewindSession) Rewinds() ([]RewindPoint, error) { return s.rewinds() }
func (s *rewindSession) CanUndoRewind() bool             { return s.canUndo }
func (s *rewindSession) Rewind(n int, code, conv bool) (RewindResult, error) {
	return s.rewind(n, code, conv)
}
