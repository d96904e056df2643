package sandbox

import (
	"strings"
	"testing"
)

// FuzzGuardToken checks that a token added to any environment is found
// in it, as /proc/PID/environ shows it, and that the tokens already there
// are kept.
func FuzzGuardToken(f *testing.F) {
	f.Add("PLY_GUARD=outer", "inner")
	f.Add("PLY_GUARD=", "t")
	f.Add("A=1", "abc")
	f.Add("PLY_GUARD=a:b:c", "b")
	f.Fuzz(func(t *testing.T, existing, token string) {
		if token == "" || strings.ContainsAny(token, ":\x00") || strings.Contains(existing, "\x00") {
			t.Skip()
		}
		before := []byte(existing + "\x00")
		env := withGuardToken([]string{existing}, token)
		environ := []byte(strings.Join(env, "\x00") + "\x00")
		if !hasGuardToken(environ, token) {
			t.Fatalf("token %q not found in %q", token, environ)
		}
		if v, ok := strings.CutPrefix(existing, guardEnv+"="); ok {
			for old := range strings.SplitSeq(v, ":") {
				if old != "" && hasGuardToken(before, old) && !hasGuardToken(environ, old) {
					t.Fatalf("token %q lost: %q", old, environ)
				}
			}
		}
	})
}
