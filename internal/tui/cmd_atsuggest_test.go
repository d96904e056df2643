package tui

import (
	"strings"
	"testing"
)

func TestAtSuggestionsWhileTyping(t *testing.T) {
	root := t.TempDir()
	emptyFiles(t, root, "README.md", "src/main.go", "src/model.go")
	h := newHarness(t, nil, nil)
	h.m.cfg.Root = root
	items := func() string {
		mn := h.m.openMenu()
		if mn == nil {
			return ""
		}
		var s []string
		for _, it := range mn.items {
			s = append(s, it.value)
		}
		return strings.Join(s, "  ")
	}
	h.typeText("look at @src/m")
	if got := items(); got != "src/main.go  src/model.go" {
		t.Fatalf("no suggestions while typing: %q", got)
	}
	if v := h.view(); !strings.Contains(v, "❯ src/main.go") || !strings.Contains(v, "  src/model.go") {
		t.Fatalf("suggestions not drawn:\n%s", v)
	}
	h.typeText("a")
	if got := items(); got != "src/main.go" {
		t.Fatalf("items %q", got)
	}
	h.typeText(" and")
	if got := items(); got != "" {
		t.Fatalf("the menu stays past the word: %q", got)
	}
	h.typeText(" @zz")
	if got := items(); got != "" {
		t.Fatalf("a menu for nothing: %q", got)
	}
}
