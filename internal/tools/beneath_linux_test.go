package tools

import "testing"

// forceWalk makes writes skip openat2 for the rest of the test when on,
// as on a kernel without it.
func forceWalk(t *testing.T, on bool) {
	t.Helper()
	prev := noOpenat2.Load()
	noOpenat2.Store(on)
	t.Cleanup(func() { noOpenat2.Store(prev) })
}
