package tui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/customcmd"
)

// menuText returns the view from the editor's prompt down.
func menuText(h *harness) string {
	v := h.view()
	_, after, _ := strings.Cut(v, "> ")
	return after
}

func TestSlashMenuListsCommandsWithHelp(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.cfg.Extra.Custom = []customcmd.Command{{Name: "review", Description: "Review a file", ArgumentHint: "[file]"}}
	h.typeText("/st")
	v := h.view()
	if !strings.Contains(v, "❯ /stats") || !strings.Contains(v, "token usage, rounds, tool calls") {
		t.Fatalf("the menu does not list /stats with its help, highlighted:\n%s", v)
	}
	if strings.Contains(v, "/clear") {
		t.Fatalf("the menu lists a command that does not match:\n%s", v)
	}
	// Filtering as typed: a name that contains what is typed comes after
	// those that start with it.
	h.m.input.Reset()
	h.typeText("/mode")
	mn := h.m.openMenu()
	if mn == nil || len(mn.items) < 2 || mn.items[0].value != "/model" || mn.items[1].value != "/approval-mode" {
		t.Fatalf("items for /mode: %+v", mn)
	}
	h.m.input.Reset()
	h.typeText("/rev")
	if v := h.view(); !strings.Contains(v, "/review") || !strings.Contains(v, "[file] Review a file") {
		t.Fatalf("a custom command is not offered with its description:\n%s", v)
	}
}

func TestSlashMenuArrowsTabEnter(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.typeText("/c")
	mn := h.m.openMenu()
	if mn == nil || len(mn.items) < 2 {
		t.Fatalf("no menu for /c: %+v", mn)
	}
	second := mn.items[1].value
	h.press(tea.KeyDown, 0)
	if v := h.view(); !strings.Contains(v, "❯ "+second) {
		t.Fatalf("Down does not highlight %s:\n%s", second, v)
	}
	h.press(tea.KeyUp, 0)
	h.press(tea.KeyUp, 0) // wraps to the last
	if got := h.m.openMenu().sel; got != len(mn.items)-1 {
		t.Fatalf("Up from the first goes to %d, want the last", got)
	}
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyTab, 0)
	if v := h.m.input.Value(); v != second+" " {
		t.Fatalf("Tab put %q, want %q", v, second+" ")
	}
	if h.m.openMenu() != nil || strings.Contains(h.view(), "❯") {
		t.Fatalf("the menu stays open after Tab:\n%s", h.view())
	}
	// History is not taken by the arrows once the menu is closed.
	h.m.input.Reset()
	h.m.updateHint()

	// Enter runs the highlighted command.
	h.typeText("/sta")
	h.press(tea.KeyEnter, 0)
	if p := h.printed(); !strings.Contains(p, "Prompts") && !strings.Contains(p, "prompts") {
		t.Fatalf("Enter on /sta did not run /stats:\n%s", p)
	}
	if v := h.m.input.Value(); v != "" {
		t.Fatalf("the editor keeps %q after the command ran", v)
	}
}

func TestSlashMenuEscAndTyping(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.typeText("/he")
	if h.m.openMenu() == nil {
		t.Fatal("no menu for /he")
	}
	h.press(tea.KeyEscape, 0)
	if h.m.openMenu() != nil || strings.Contains(h.view(), "❯ /help") {
		t.Fatalf("Esc does not close the menu:\n%s", h.view())
	}
	if v := h.m.input.Value(); v != "/he" {
		t.Fatalf("Esc changed the text to %q", v)
	}
	// The next letter opens it again, filtered.
	h.typeText("l")
	if mn := h.m.openMenu(); mn == nil || mn.items[0].value != "/help" {
		t.Fatalf("typing does not reopen the menu: %+v", mn)
	}
	// Every typed key reaches the editor, also j, k, q and space.
	h.typeText("jkq x")
	if v := h.m.input.Value(); v != "/heljkq x" {
		t.Fatalf("typed keys were taken: %q", v)
	}
	if h.m.openMenu() != nil {
		t.Fatal("the menu stays open past a space")
	}
	// A text with no match closes it: Enter sends the text as typed.
	h.m.input.Reset()
	h.typeText("/zzz")
	if h.m.openMenu() != nil {
		t.Fatal("a menu for a text no command matches")
	}
	h.press(tea.KeyEnter, 0)
	if p := h.printed(); !strings.Contains(p, "unknown command /zzz") {
		t.Fatalf("/zzz was not run as typed:\n%s", p)
	}
}

func TestSlashMenuScrolls(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, nil, nil)
		h.update(tea.WindowSizeMsg{Width: w, Height: 24})
		h.typeText("/")
		mn := h.m.openMenu()
		if mn == nil || len(mn.items) <= menuMaxRows {
			t.Fatalf("want more than %d commands for /", menuMaxRows)
		}
		v := h.view()
		if strings.Count(menuText(h), "\n  /") > menuMaxRows {
			t.Fatalf("the menu is not bounded:\n%s", v)
		}
		for i := 0; i < len(mn.items)-1; i++ {
			h.press(tea.KeyDown, 0)
		}
		last := mn.items[len(mn.items)-1].value
		v = h.view()
		if !strings.Contains(v, "❯ "+last) || strings.Contains(v, "❯ /help") {
			t.Fatalf("at %d columns the menu does not scroll to the last item %s:\n%s", w, last, v)
		}
		if !strings.Contains(v, "of "+strconv.Itoa(len(mn.items))) {
			t.Fatalf("no position line:\n%s", v)
		}
		for _, l := range strings.Split(v, "\n") {
			if n := len([]rune(l)); n > w {
				t.Fatalf("a line of %d columns at %d: %q", n, w, l)
			}
		}
	}
}

func TestAtMenuPaths(t *testing.T) {
	root := t.TempDir()
	emptyFiles(t, root, "README.md", "src/main.go", "src/model.go")
	h := newHarness(t, nil, nil)
	h.m.cfg.Root = root
	h.typeText("look at @s")
	if v := h.view(); !strings.Contains(v, "❯ src/") {
		t.Fatalf("no path menu:\n%s", v)
	}
	// Enter on a folder goes into it; the menu lists what it holds.
	h.press(tea.KeyEnter, 0)
	if v := h.m.input.Value(); v != "look at @src/" {
		t.Fatalf("Enter put %q", v)
	}
	if v := h.view(); !strings.Contains(v, "❯ src/main.go") || !strings.Contains(v, "src/model.go") {
		t.Fatalf("the folder's files are not listed:\n%s", v)
	}
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyTab, 0)
	if v := h.m.input.Value(); v != "look at @src/model.go " {
		t.Fatalf("Tab put %q", v)
	}
	if h.m.openMenu() != nil {
		t.Fatal("the menu stays open after a file is accepted")
	}
	if n := len(h.m.printed); n != 1 { // the title only: nothing was sent
		t.Fatalf("Enter on a path sent something: %q", h.m.printed)
	}
}

// BenchmarkSlashKeystroke: a key typed in a /command and one erased,
// each with the menu filtered and the frame drawn, as the program does.
func BenchmarkSlashKeystroke(b *testing.B) {
	m := newModel(Config{Model: "bench-model", PermissionMode: "default", NoColor: true, Width: 80, Height: 24}, &driver{})
	for _, r := range "/st" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Update(tea.KeyPressMsg{Code: 'a', Text: "a"})
		_ = m.View()
		m.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
		_ = m.View()
	}
}
