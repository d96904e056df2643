package redact

import (
	"slices"
	"strings"
	"testing"
)

// The matcher replaces exactly what a strings.Replacer of the same
// secrets, longest first, does.
func FuzzMatcherAgreesWithReplacer(f *testing.F) {
	f.Add("ab abc abcd xabcdx", "abc", "abcd", "bc")
	f.Add("sk-live-0123 sk-live-0123456789abcdef", "sk-live-0123456789abcdef", "sk-live-0123", "0123")
	f.Add("aaaaaaa", "aa", "aaa", "aaaa")
	f.Fuzz(func(t *testing.T, text, s1, s2, s3 string) {
		var secrets []string
		for _, s := range []string{s1, s2, s3} {
			if len(s) >= 2 && !slices.Contains(secrets, s) {
				secrets = append(secrets, s)
			}
		}
		if len(secrets) == 0 {
			return
		}
		slices.SortStableFunc(secrets, func(a, b string) int { return len(b) - len(a) })
		var pairs []string
		for _, s := range secrets {
			pairs = append(pairs, s, Mark)
		}
		want := strings.NewReplacer(pairs...).Replace(text)
		if got := newMatcher(secrets).Replace(text); got != want {
			t.Fatalf("secrets %q in %q: got %q, want %q", secrets, text, got, want)
		}
	})
}
