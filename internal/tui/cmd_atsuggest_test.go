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
	h.typeText("look at @src/m")
	if h.m.hint != "src/main.go  src/model.go" {
		t.Fatalf("no suggestions while typing: %q", h.m.hint)
	}
	if !strings.Contains(strings.Join(strings.Fields(h.view()), " "), "src/main.go src/model.go") {
		t.Fatalf("suggestions not drawn:\n%s", h.view())
	}
	h.typeText("a")
	if h.m.hint != "src/main.go" {
		t.Fatalf("hint %q", h.m.hint)
	}
	h.typeText(" and")
	if h.m.hint != "" {
		t.Fatalf("the hint stays past the word: %q", h.m.hint)
	}
	h.typeText(" @zz")
	if h.m.hint != "" {
		t.Fatalf("hint for nothing: %q", h.m.hint)
	}
}
