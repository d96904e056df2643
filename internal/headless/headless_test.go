package headless

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAbbreviateKeepsValidUTF8(t *testing.T) {
	s := strings.Repeat("é", 100) // two bytes each
	for n := 1; n < 50; n++ {
		got := abbreviate(s, n)
		if !utf8.ValidString(got) || len(got) > n+len("…") {
			t.Fatalf("abbreviate(%d) = %q", n, got)
		}
	}
	if got := abbreviate("a  b\n c", 10); got != "a b c" {
		t.Fatalf("whitespace not collapsed: %q", got)
	}
}
