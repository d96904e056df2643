package checkpoint

import (
	"path/filepath"
	"testing"
)

// BenchmarkTrackerStart reports what the tracker's watches cost: the time
// to add one per directory of the generated tree (25 files a directory).
// The kernel keeps about 1 KB per watch (inotify(7)).
func BenchmarkTrackerStart(b *testing.B) {
	root, rels := benchTree(b, benchFiles())
	seen := map[string]bool{}
	var dirs []string
	for _, r := range rels {
		for d := filepath.Dir(filepath.Join(root, r)); d != root && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	dirs = append(dirs, root)
	for b.Loop() {
		tr := newTracker([]string{root})
		if tr == nil {
			b.Skip("no inotify")
		}
		for _, d := range dirs {
			tr.watch(0, d)
		}
		if tr.broken || len(tr.dirs) != len(dirs) {
			b.Fatalf("%d watches of %d", len(tr.dirs), len(dirs))
		}
		tr.close()
	}
	b.ReportMetric(float64(len(dirs)), "watches")
}
