//go:build !linux

package checkpoint

// tracker is Linux's change tracker; elsewhere every checkpoint scans.
type tracker struct {
	roots     []string
	exclude   []string
	exhausted bool
}

type trackedDir struct {
	root int
	rel  string
}

type changes struct {
	full bool
	dirs map[trackedDir]bool
}

func newTracker([]string) *tracker   { return nil }
func (t *tracker) close()            {}
func (t *tracker) watched() int      { return 0 }
func (t *tracker) watch(int, string) {}
func (t *tracker) drain() changes    { return changes{full: true} }
