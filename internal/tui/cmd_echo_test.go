package tui

import (
	"strings"
	"testing"
)

func TestCommandEchoedAboveOutput(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send0("/stats")
	p := h.printed()
	if !strings.Contains(p, "> /stats\nSession stats:") {
		t.Fatalf("/stats is not echoed above its output:\n%s", p)
	}
	h.send0("/approval-mode")
	if p := h.printed(); !strings.Contains(p, "> /approval-mode\n") {
		t.Fatalf("/approval-mode is not echoed:\n%s", p)
	}
	// An unknown command is not echoed: its error names it.
	h.send0("/nosuch")
	if p := h.printed(); strings.Contains(p, "> /nosuch") || !strings.Contains(p, "unknown command /nosuch") {
		t.Fatalf("unknown command:\n%s", p)
	}
}

// send0 types a line and presses Enter, for commands that start no
// interaction.
func (h *harness) send0(line string) {
	h.typeText(line)
	h.enter()
}
