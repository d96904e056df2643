package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// TestDiffOneFormat: the approval dialog, the tool card and /diff draw
// the same change in the same format, numbered as the lines of the file.
func TestDiffOneFormat(t *testing.T) {
	root := t.TempDir()
	var before strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&before, "line %d\n", i)
	}
	after := strings.Replace(before.String(), "line 101\n", "line 101 changed\n", 1)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(before.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"100   line 100", "101 - line 101", "101 + line 101 changed", "102   line 102"}
	check := func(where, text string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", where, w, text)
			}
		}
	}

	h := newHarness(t, nil, nil)
	h.m.cfg.Root = root
	args, _ := json.Marshal(map[string]string{"file_path": "a.txt", "old_string": "line 100\nline 101\nline 102\n", "new_string": "line 100\nline 101 changed\nline 102\n"})
	h.m.busy, h.m.id = true, 1
	reply := make(chan scheduler.Decision, 1)
	h.update(approvalMsg{reply: reply, call: callView{id: "c1", name: "edit", args: string(args), state: scheduler.StateAwaitingApproval}})
	check("the dialog", h.view())
	h.m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce})

	// The edit tool's display: a unified diff with its file header.
	display := "--- a/a.txt\n+++ b/a.txt\n@@ -99,4 +99,4 @@\n line 99\n line 100\n-line 101\n+line 101 changed\n line 102\n"
	h.update(callMsg{call: callView{id: "c1", name: "edit", args: string(args), state: scheduler.StateSuccess, display: display}})
	check("the card", h.view())

	h.m.cfg.Session = struct {
		bare
		Differ
	}{bare{}, diffFunc(func(context.Context) (Changes, error) {
		return Changes{Files: []FileChange{{Op: 'M', Path: "a.txt", Old: before.String(), New: after}}}, nil
	})}
	h.m.busy = false
	h.typeText("/diff")
	h.enter()
	h.pumpUntil(isFunc)
	check("/diff", h.printed())
}

func TestRenderDiffHunksAndCut(t *testing.T) {
	h := newHarness(t, nil, nil)
	lines := lineDiff("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\n", 1)
	out, hidden := h.m.renderDiff(lines, diffOpts{width: 40})
	got := strings.Join(out, "\n")
	if want := " 1   a\n 2 - b\n 2 + B\n 3   c\n   ⋯\n 8   h\n 9 - i\n 9 + I\n10   j"; got != want {
		t.Fatalf("renderDiff:\n%s\nwant\n%s", got, want)
	}
	if hidden != 0 {
		t.Fatalf("hidden %d", hidden)
	}
	out, hidden = h.m.renderDiff(lines, diffOpts{width: 40, max: 3})
	if len(out) != 3 || hidden == 0 {
		t.Fatalf("max 3: %d lines, %d hidden", len(out), hidden)
	}
	// A line too long for a card is cut to the width.
	out, _ = h.m.renderDiff([]string{"@@ -1,1 +1,1 @@", "+" + strings.Repeat("x", 100)}, diffOpts{width: 30})
	if w := len([]rune(out[0])); w != 30 || !strings.HasSuffix(out[0], "…") {
		t.Fatalf("cut line %q (%d wide)", out[0], w)
	}
}

func FuzzParseHunk(f *testing.F) {
	for _, s := range []string{"@@ -1,3 +1,4 @@", "@@ -0,0 +1 @@ func x", "@@ -5 +5 @@", "@@ line 3 @@", "@@ -a,b +c,d @@", "@@ -99999999999999999999,1 +1 @@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, b, ok := parseHunk(s)
		if ok && (a < 1 || b < 1 || a > 1<<30 || b > 1<<30) {
			t.Fatalf("parseHunk(%q) = %d, %d", s, a, b)
		}
		if ok && !strings.HasPrefix(s, "@@ -") {
			t.Fatalf("parseHunk(%q) accepted a line that is no header", s)
		}
	})
}
