package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/llm"
)

type renameFunc func(string) error

func (f renameFunc) Rename(title string) error { return f(title) }

// switcher lists sessions and records which one it switched to.
type switcher struct {
	list     []SessionInfo
	switched []string
}

func (s *switcher) Sessions() ([]SessionInfo, error) { return s.list, nil }
func (s *switcher) Switch(id string) ([]llm.Message, error) {
	s.switched = append(s.switched, id)
	return nil, nil
}

func TestRenameCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	var named []string
	h.m.cfg.Session = struct {
		bare
		Renamer
	}{bare{}, renameFunc(func(n string) error {
		if n == "bad" {
			return errors.New("not that one")
		}
		named = append(named, n)
		return nil
	})}
	for _, line := range []string{"/rename  auth refactor ", "/rename", "/rename bad"} {
		h.typeText(line)
		h.enter()
	}
	p := h.printed()
	if strings.Join(named, "|") != "auth refactor" || !strings.Contains(p, "ply -r 'auth refactor' resumes it") ||
		!strings.Contains(p, "✗ /rename NAME: give the session a name") || !strings.Contains(p, "✗ /rename: not that one") {
		t.Fatalf("named %q\n%s", named, p)
	}
}

// Typing in /resume's picker narrows it by name, first prompt or id;
// Enter resumes the chosen one of those shown.
func TestResumePickerSearch(t *testing.T) {
	h := newHarness(t, nil, nil)
	sw := &switcher{list: []SessionInfo{
		{ID: "s1", FirstPrompt: "fix the login bug"},
		{ID: "s2", Title: "Auth refactor", FirstPrompt: "move tokens"},
		{ID: "s3", FirstPrompt: "write docs"},
	}}
	h.m.cfg.Session = struct {
		bare
		SessionSwitcher
	}{bare{}, sw}
	h.typeText("/resume")
	h.enter()
	if v := h.view(); !strings.Contains(v, "Auth refactor") || !strings.Contains(v, "write docs") {
		t.Fatalf("the picker:\n%s", v)
	}
	h.typeText("AUTH")
	if v := h.view(); !strings.Contains(v, "search: AUTH  (1 of 3)") || strings.Contains(v, "write docs") {
		t.Fatalf("filtered:\n%s", v)
	}
	h.press(tea.KeyBackspace, 0)
	h.press(tea.KeyBackspace, 0)
	h.press(tea.KeyBackspace, 0)
	h.press(tea.KeyBackspace, 0)
	h.typeText("docs")
	h.press(tea.KeyEnter, 0)
	if strings.Join(sw.switched, ",") != "s3" {
		t.Fatalf("resumed %v", sw.switched)
	}
}

// An unknown command names the one meant: another agent's name for it,
// or a typo's nearest.
func TestUnknownCommandSuggests(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, line := range []string{"/usage", "/stast", "/frobnicate"} {
		h.typeText(line)
		h.enter()
	}
	p := h.printed()
	for _, w := range []string{"unknown command /usage (did you mean /stats?)", "unknown command /stast (did you mean /stats?)", "unknown command /frobnicate (try /help)"} {
		if !strings.Contains(p, w) {
			t.Errorf("lacks %q:\n%s", w, p)
		}
	}
}
