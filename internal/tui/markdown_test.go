package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownPlain(t *testing.T) {
	md := newMarkdown(true)
	got := md.render("# Title\n\nSome **bold** and `code` and *it*.\n\n- one\n- two\n1. first\n\n```go\nfunc f() {}\n```\n> quoted\n\n---", 80)
	for _, want := range []string{"Title", "Some bold and code and it.", "• one", "• two", "1. first", "  func f() {}", "│ quoted", "────"} {
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
	if got := md.render("a\n\n\n\nb\n\n", 80); got != "a\n\nb" {
		t.Fatalf("blank lines not collapsed: %q", got)
	}
	if got := md.render("evil \x1b]0;title\x07 \x1b[2Jtext\r", 80); strings.ContainsAny(got, "\x1b\x07\r") {
		t.Fatalf("control characters reached the output: %q", got)
	}
}

func TestHighlight(t *testing.T) {
	md := newMarkdown(false)
	got := md.render("```go\nfunc main() { return \"hi\" } // note\n```", 80)
	if !strings.Contains(got, "\x1b[") {
		t.Fatalf("code not highlighted: %q", got)
	}
	if plain := ansi.Strip(got); plain != `  func main() { return "hi" } // note` {
		t.Fatalf("highlighting changed the text: %q", plain)
	}
	for _, lang := range []string{"python", "ts", "bash", "json", "diff", "unknown"} {
		src := "x = 1 # 'a' // b\n+added\n-removed"
		out := ansi.Strip(md.render("```"+lang+"\n"+src+"\n```", 80))
		if out != "  x = 1 # 'a' // b\n  +added\n  -removed" {
			t.Errorf("%s: text changed: %q", lang, out)
		}
	}
}

// TestMarkdownStreamSplit checks that a reply rendered as it streams, in
// chunks of any size, is the reply rendered whole, and that the open
// line's view is cached between chunks.
func TestMarkdownStreamSplit(t *testing.T) {
	md := newMarkdown(false)
	text := "# Plan\n\nFirst **do** this:\n\n```go\nfor i := range 3 {\n\tfmt.Println(i)\n}\n```\n- a `thing`\n- another\n\n> done" +
		strings.Repeat(" long", 700) + "\nend"
	whole := md.render(text, 60)
	for _, size := range []int{1, 3, 20, 97, len(text)} {
		s := md.stream(60)
		var out []string
		for i := 0; i < len(text); i += size {
			out = append(out, s.write(text[i:min(i+size, len(text))])...)
			s.view()
		}
		out = append(out, s.end()...)
		if got := strings.Join(out, "\n"); got != whole {
			t.Fatalf("chunks of %d:\n%s\nwant:\n%s", size, got, whole)
		}
	}
	s := md.stream(60)
	s.write("open line")
	v := s.view()
	if !s.tailOK || s.view() != v || !strings.Contains(v, "open line") {
		t.Fatal("the open line's render is not cached")
	}
	s.write(" grows")
	if s.tailOK || !strings.Contains(s.view(), "open line grows") {
		t.Fatal("the open line's render was not refreshed")
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"# h\n\n**b** _i_ `c`\n- x\n  - y\n1. z\n> q\n---\n| a | b |\n|---|---|\n```py\nprint('x')\n```\n",
		"```\nunterminated\tcode with a very long line " + strings.Repeat("x", 300),
		"日本語のテキスト 🎉 emoji and combining é\u0301 and zero\u200bwidth",
		"\x1b[31mred\x1b[0m\r\n\x00\x7f\u202e",
		strings.Repeat("word ", 1000),
		"# Big [link](https://example.invalid/a) ~~gone~~ <https://example.invalid>\n## small\n[x](y) [](z)",
	} {
		f.Add(s, uint16(7), uint8(60))
	}
	md := newMarkdown(false)
	plain := newMarkdown(true)
	f.Fuzz(func(t *testing.T, text string, split uint16, w uint8) {
		width := 20 + int(w)%180
		for _, r := range []*markdown{md, plain} {
			whole := r.render(text, width)
			for i, l := range strings.Split(whole, "\n") {
				if lw := ansi.StringWidth(l); lw > width {
					t.Fatalf("line %d is %d columns at width %d: %q", i, lw, width, l)
				}
				if strings.ContainsAny(ansi.Strip(l), "\x1b\r\x00\x07") {
					t.Fatalf("control character in line %d: %q", i, l)
				}
			}
			s := r.stream(width)
			cut := int(split) % (len(text) + 1)
			out := s.write(text[:cut])
			s.view()
			out = append(out, s.write(text[cut:])...)
			out = append(out, s.end()...)
			if got := strings.Join(out, "\n"); got != whole {
				t.Fatalf("split at %d gave\n%q\nwant\n%q", cut, got, whole)
			}
		}
	})
}

// TestMarkdownTable checks that a table is drawn aligned, by the
// delimiter row's alignment, narrowed to the width, and that a row
// without a delimiter row after it stays text.
func TestMarkdownTable(t *testing.T) {
	md := newMarkdown(true)
	text := "Before | after\n\n| Name | Size | Notes |\n|:---|---:|:-:|\n| `a.go` | 12 | **new** |\n| b_long_name.go | 1234 | x |\nAfter the table."
	got := md.render(text, 60)
	want := strings.Join([]string{
		"Before | after",
		"",
		"Name           │ Size │ Notes",
		"───────────────┼──────┼──────",
		"a.go           │   12 │  new",
		"b_long_name.go │ 1234 │   x",
		"After the table.",
	}, "\n")
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}

	// Narrow: the widest column gives way, cells are cut with an ellipsis.
	narrow := md.render("| key | description |\n|---|---|\n| k | "+strings.Repeat("very long text ", 6)+"|", 30)
	for i, l := range strings.Split(narrow, "\n") {
		if w := ansi.StringWidth(l); w > 28 {
			t.Errorf("line %d is %d columns, want ≤ 28: %q", i, w, l)
		}
	}
	if !strings.Contains(narrow, "…") || !strings.Contains(narrow, "k   │ very") {
		t.Errorf("narrow table:\n%s", narrow)
	}

	// While a table streams, the live view shows its rows so far aligned.
	s := md.stream(60)
	if lines := s.write("| a | bbbb |\n|---|---|\n| ccc | d |\n| e"); len(lines) != 0 {
		t.Fatalf("a table's rows were committed before it ended: %q", lines)
	}
	if v := s.view(); !strings.Contains(v, "ccc │ d") || !strings.Contains(v, "e   │") {
		t.Errorf("live view of a streaming table:\n%s", v)
	}
}

// Links show their text and address, strikethrough is struck, and a
// first-level heading stands apart from a second-level one.
func TestMarkdownLinksStrikeHeadings(t *testing.T) {
	plain := newMarkdown(true)
	got := plain.render("See [the docs](https://example.invalid/d) or <https://example.invalid/x>, ~~old~~ new.", 80)
	for _, want := range []string{"See the docs (https://example.invalid/d) or https://example.invalid/x,", "~~old~~"} {
		if !strings.Contains(got, want) {
			t.Errorf("plain: missing %q in %q", want, got)
		}
	}
	if got := plain.render("[https://example.invalid](https://example.invalid)", 80); got != "https://example.invalid" {
		t.Errorf("a link whose text is its address: %q", got)
	}
	styled := newMarkdown(false)
	got = styled.render("a ~~gone~~ b [site](https://example.invalid)", 80)
	if strings.Contains(got, "~~") || strings.Contains(got, "](") {
		t.Errorf("styled: markers left in %q", got)
	}
	if !strings.Contains(got, "\x1b[9m") && !strings.Contains(got, ";9m") && !strings.Contains(got, "[9;") {
		t.Errorf("styled: no strikethrough in %q", got)
	}
	h1, h2 := styled.render("# Top", 80), styled.render("## Top", 80)
	if h1 == h2 {
		t.Errorf("H1 and H2 render alike: %q", h1)
	}
	if p1, p2 := plain.render("# Top", 80), plain.render("## Top", 80); p1 == p2 {
		t.Errorf("without colour H1 and H2 render alike: %q", p1)
	}
}
