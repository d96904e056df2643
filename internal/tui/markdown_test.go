package tui

import (
	"strings"
	"testing"
)

func TestMarkdownPlain(t *testing.T) {
	md := newMarkdown(true)
	got := md.render("# Title\n\nSome **bold** and `code` and *it*.\n\n- one\n- two\n\n```go\nfunc f() {}\n```\n> quoted", 80)
	for _, want := range []string{"Title", "Some bold and code and it.", "• one", "• two", "  func f() {}", "│ quoted"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, bad := range []string{"**", "`", "```", "# "} {
		if strings.Contains(got, bad) {
			t.Errorf("marker %q left in:\n%s", bad, got)
		}
	}
	long := md.render(strings.Repeat("word ", 50), 40)
	for _, l := range strings.Split(long, "\n") {
		if len(l) > 40 {
			t.Fatalf("line longer than the width: %q", l)
		}
	}
}
