package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// TestLiveAreaFitsTheScreen checks that a live area taller than the
// screen (many running calls with output) gives way at the top and keeps
// the editor and footer in view, in 80x24.
func TestLiveAreaFitsTheScreen(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.busy, h.m.id = true, 1
	for i := range 12 {
		h.m.updateCard(callView{id: fmt.Sprint("c", i), name: "run_shell_command", args: `{"command":"make"}`, state: scheduler.StateExecuting})
		h.m.cards[i].live = "line 1\nline 2\nline 3\nline 4\nline 5\n"
	}
	v := h.view()
	lines := strings.Split(v, "\n")
	if len(lines) > 24 {
		t.Fatalf("the live area is %d lines on a 24-line screen:\n%s", len(lines), v)
	}
	if !strings.Contains(lines[len(lines)-1], "test-model") || !strings.Contains(v, "> ") {
		t.Fatalf("the footer or the editor left the screen:\n%s", v)
	}
}
