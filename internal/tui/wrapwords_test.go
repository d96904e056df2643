package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// flat is s with its lines and runs of spaces joined by one space, for
// finding a text that wrapping may have broken.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestFitWords(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"short line", 20, "short line"},
		{"the quick brown fox jumps over the lazy dog", 20, "the quick brown fox\njumps over the lazy\ndog"},
		{"see /a/very-long-path/that-does-not-fit.txt now", 20, "see\n/a/very-long-path/that-does-not-fit.txt\nnow"},
		{"keep\nlines apart and wrap the long one here", 20, "keep\nlines apart and wrap\nthe long one here"},
		{"\x1b[2mdim words that run past the edge\x1b[0m", 16, "\x1b[2mdim words that\nrun past the\nedge\x1b[0m"},
		{"  indented text that is long enough", 20, "  indented text that\nis long enough"},
		{"日本語の 文章は 幅が 二倍です", 10, "日本語の\n文章は\n幅が\n二倍です"},
	} {
		got := fitWords(tc.in, tc.width)
		if got != tc.want {
			t.Errorf("fitWords(%q, %d) =\n%q\nwant\n%q", tc.in, tc.width, got, tc.want)
		}
		if flat(ansi.Strip(got)) != flat(ansi.Strip(tc.in)) {
			t.Errorf("fitWords(%q) lost or changed words: %q", tc.in, got)
		}
	}
}

// TestNoticeWrapsOnWords: a committed line longer than the screen breaks
// between words, not in one (at 80 and 120 columns).
func TestNoticeWrapsOnWords(t *testing.T) {
	text := strings.Repeat("conversation ", 15)
	for _, w := range []int{80, 120} {
		h := newHarness(t, nil, nil)
		h.m.resize(w, 30)
		h.update(noticeMsg{text: text})
		p := h.m.printed[len(h.m.printed)-1]
		for _, l := range strings.Split(p, "\n") {
			if ansi.StringWidth(l) > w {
				t.Fatalf("at %d a line is %d wide: %q", w, ansi.StringWidth(l), l)
			}
			for _, word := range strings.Fields(l) {
				if word != "conversation" {
					t.Fatalf("at %d a word is cut: %q in\n%s", w, word, p)
				}
			}
		}
	}
}

func FuzzFitWords(f *testing.F) {
	for _, s := range []string{"a b c", "\x1b[31mred text here\x1b[0m and more", "日本語 テキスト", "  lead", "x\n\ny  z", ""} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		width = width%200 + 1
		if width < 1 {
			width = -width + 1
		}
		got := fitWords(s, width)
		if strings.ReplaceAll(got, "\n", " ") != strings.ReplaceAll(s, "\n", " ") {
			t.Fatalf("fitWords(%q, %d) = %q: not only spaces turned into line breaks", s, width, got)
		}
	})
}

// BenchmarkFitWords: a committed block is checked line by line; only a
// line wider than the screen is measured and broken.
func BenchmarkFitWords(b *testing.B) {
	fits := strings.Repeat("A reply line that fits the screen well enough.\n", 40)
	b.Run("fits", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fitWords(fits, 80)
		}
	})
	long := strings.Repeat("a notice that runs past the screen ", 8)
	b.Run("wraps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fitWords(long, 80)
		}
	})
}
