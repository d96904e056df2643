package tui

import (
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Ctrl+R finds earlier prompts by what they hold, newest first; Enter
// keeps the one found in the editor, Esc goes back to what was typed.
func TestHistorySearch(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.history = []string{"run the tests", "fix the login bug", "deploy", "fix the docs"}
	h.m.histPos = len(h.m.history)
	h.typeText("draft")
	h.press('r', tea.ModCtrl)
	h.typeText("fix")
	if v := h.m.input.Value(); v != "fix the docs" || !strings.Contains(h.m.hint, "search: fix") {
		t.Fatalf("first match %q, hint %q", v, h.m.hint)
	}
	h.press('r', tea.ModCtrl)
	if v := h.m.input.Value(); v != "fix the login bug" {
		t.Fatalf("older match %q", v)
	}
	h.press('r', tea.ModCtrl)
	if v := h.m.input.Value(); v != "fix the login bug" || !strings.Contains(h.m.hint, "no older match") {
		t.Fatalf("past the last match: %q, hint %q", v, h.m.hint)
	}
	h.press(tea.KeyEscape, 0)
	if v := h.m.input.Value(); v != "draft" || h.m.search != nil {
		t.Fatalf("Esc gave %q", v)
	}
	h.press('r', tea.ModCtrl)
	h.typeText("depl")
	h.press(tea.KeyEnter, 0)
	if v := h.m.input.Value(); v != "deploy" || h.m.search != nil {
		t.Fatalf("Enter kept %q", v)
	}
}

// Ctrl+G's editor runs the user's $VISUAL on the prompt; what it saves
// becomes the prompt, and a failing editor changes nothing.
func TestExternalEditor(t *testing.T) {
	getenv = func(k string) string {
		if k == "VISUAL" {
			return "sed -i 's/draft/edited/'"
		}
		return ""
	}
	t.Cleanup(func() { getenv = os.Getenv })
	f, err := os.CreateTemp(t.TempDir(), "p")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("a draft\n\twith a tab\n")
	f.Close()
	if err := editorCommand(f.Name()).Run(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Name())
	if string(b) != "a edited\n\twith a tab\n" {
		t.Fatalf("the editor ran as %q", b)
	}
	h := newHarness(t, nil, nil)
	h.update(editorMsg{text: strings.TrimRight(string(b), "\n")})
	if v := unmarkTabs(h.m.input.Value()); v != "a edited\n\twith a tab" {
		t.Fatalf("the prompt is %q", v)
	}
	h.update(editorMsg{err: os.ErrPermission})
	if v := unmarkTabs(h.m.input.Value()); v != "a edited\n\twith a tab" || !strings.Contains(h.m.hint, "the editor failed") {
		t.Fatalf("after a failed editor: %q, hint %q", v, h.m.hint)
	}
}
