package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

type warmSession struct{ warmed int }

func (s *warmSession) ID() string    { return "s" }
func (s *warmSession) WarmProvider() { s.warmed++ }

// Typing a prompt opens the provider's connection ahead of its sending;
// an empty box (a key that changes nothing) opens nothing.
func TestTypingWarmsTheProvider(t *testing.T) {
	h := newHarness(t, nil, nil)
	s := &warmSession{}
	h.m.cfg.Session = s
	h.press(tea.KeyLeft, 0)
	if s.warmed != 0 {
		t.Fatalf("a key on an empty box warmed %d times", s.warmed)
	}
	h.typeText("fix it")
	if s.warmed == 0 {
		t.Fatal("typing a prompt did not warm the provider")
	}
	n := s.warmed
	h.update(tea.PasteMsg{Content: " and the tests"})
	if s.warmed == n {
		t.Fatal("a paste did not warm the provider")
	}
}
