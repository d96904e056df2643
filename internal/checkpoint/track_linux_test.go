package checkpoint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// trackPair is a tracked store and a store that scans in full, over the
// same root; check compares what they record.
type trackPair struct {
	root          string
	tracked, full *Store
}

func newTrackPair(t testing.TB, root string) *trackPair {
	tracked, err := Open(t.TempDir(), Options{Track: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tracked.Close() })
	full, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &trackPair{root: root, tracked: tracked, full: full}
	p.check(t, "start")
	if tracked.tr == nil {
		t.Fatal("no tracker after the first checkpoint")
	}
	return p
}

// check records both and fails if they differ in any path's kind, mode,
// content or target; it returns whether the tracked store scanned in full.
func (p *trackPair) check(t testing.TB, what string) (fullScan bool) {
	t.Helper()
	ctx := context.Background()
	before := p.tracked.scans
	a, err := p.tracked.Checkpoint(ctx, []string{p.root})
	if err != nil {
		t.Fatalf("%s: tracked: %v", what, err)
	}
	b, err := p.full.Checkpoint(ctx, []string{p.root})
	if err != nil {
		t.Fatalf("%s: full: %v", what, err)
	}
	ma, err := p.tracked.Load(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := p.full.Load(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := recordedDiff(ma, mb); d != "" {
		t.Fatalf("%s: the tracked checkpoint differs from a full scan:\n%s", what, d)
	}
	if a.Files != b.Files || len(a.Skipped) != len(b.Skipped) {
		t.Fatalf("%s: results differ: tracked %+v, full %+v", what, a, b)
	}
	return p.tracked.scans > before
}

func recordedDiff(a, b *Manifest) string {
	key := func(e *Entry) string {
		return fmt.Sprintf("%c %o %s %q", e.Kind, e.Mode, e.Hash, e.Target)
	}
	am, bm := map[string]string{}, map[string]string{}
	for i := range a.Entries {
		am[a.Entries[i].Rel] = key(&a.Entries[i])
	}
	for i := range b.Entries {
		bm[b.Entries[i].Rel] = key(&b.Entries[i])
	}
	var out []string
	for k, v := range am {
		if bm[k] != v {
			out = append(out, fmt.Sprintf("  %s: tracked %q, full %q", k, v, bm[k]))
		}
	}
	for k, v := range bm {
		if _, ok := am[k]; !ok {
			out = append(out, fmt.Sprintf("  %s: tracked missing, full %q", k, v))
		}
	}
	return strings.Join(out, "\n")
}

func TestTrackerSeesEveryKindOfChange(t *testing.T) {
	root := newWorkspace(t, true)
	write(t, root, "lib/deep/x/y.go", "package y\n", 0o644)
	write(t, root, "other/z.txt", "zzz", 0o644)
	// A second name outside the workspace: no watch sees a write through
	// it, so the file's stat is checked every time.
	alias := filepath.Join(t.TempDir(), "alias")
	must(t, os.Link(filepath.Join(root, "run.sh"), alias))
	time.Sleep(150 * time.Millisecond) // out of the racy window: stat alone is trusted
	p := newTrackPair(t, root)
	if full := p.check(t, "nothing changed"); full {
		t.Fatal("an unchanged tree was scanned in full")
	}
	abs := func(rel string) string { return filepath.Join(root, rel) }
	steps := []struct {
		name    string
		do      func()
		mayFull bool // the tracker may ask for a full scan
	}{
		{"same size, times put back", func() {
			fi, _ := os.Stat(abs("main.go"))
			must(t, os.WriteFile(abs("main.go"), []byte("package mian\n"), 0o644))
			must(t, os.Chtimes(abs("main.go"), fi.ModTime(), fi.ModTime()))
		}, false},
		{"mode", func() { must(t, os.Chmod(abs("lib/a.go"), 0o600)) }, false},
		{"symlink retargeted", func() {
			must(t, os.Remove(abs("link")))
			must(t, os.Symlink("run.sh", abs("link")))
		}, false},
		{"rename across directories", func() { must(t, os.Rename(abs("lib/deep/x/y.go"), abs("other/y.go"))) }, false},
		{"new directory filled at once", func() {
			for i := range 30 {
				write(t, root, fmt.Sprintf("lib/new/a%d/b/f%d.go", i%3, i), fmt.Sprint(i), 0o644)
			}
		}, false},
		{"directory renamed, then a file in it changed", func() {
			must(t, os.Rename(abs("lib/new"), abs("other/moved")))
			write(t, root, "other/moved/a1/b/f1.go", "changed after the move", 0o644)
		}, false},
		{"file in the moved directory changed later", func() {
			write(t, root, "other/moved/a2/b/f2.go", "changed later", 0o644)
		}, false},
		{"directory deleted", func() { must(t, os.RemoveAll(abs("other/moved/a0"))) }, false},
		{"directory replaced by a file", func() {
			must(t, os.RemoveAll(abs("lib/deep")))
			write(t, root, "lib/deep", "now a file", 0o644)
		}, false},
		{"ignored file written", func() { write(t, root, "build/more.o", "obj", 0o644) }, false},
		{"ignore rules changed", func() { write(t, root, ".gitignore", "build/\n*.txt\n", 0o644) }, true},
		{"exclude file changed", func() { write(t, root, ".git/info/exclude", "run.sh\n", 0o644) }, true},
		{"file changed through a second name outside", func() {
			f, err := os.OpenFile(alias, os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			f.WriteString("// through the alias\n")
			f.Close()
		}, false},
		{"write through an unwatched ignored directory then moved in", func() {
			write(t, root, "build/gen/g.go", "generated", 0o644)
			must(t, os.Rename(abs("build/gen"), abs("lib/gen")))
		}, false},
		{"file made unreadable directory", func() { must(t, os.Chmod(abs("other"), 0o300)) }, true},
		{"and readable again", func() { must(t, os.Chmod(abs("other"), 0o755)) }, true},
	}
	for _, st := range steps {
		st.do()
		if full := p.check(t, st.name); full && !st.mayFull {
			t.Errorf("%s: scanned in full", st.name)
		}
	}
}

func TestTrackerRootRemovedScansInFull(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	write(t, root, "a.go", "a", 0o644)
	p := newTrackPair(t, root)
	must(t, os.Rename(root, root+".old"))
	write(t, root, "b.go", "b", 0o644)
	if !p.check(t, "root replaced") {
		t.Fatal("a replaced root was not scanned in full")
	}
}

// TestTrackerRandomOps applies random changes and compares the tracked
// checkpoint with a full scan after each batch.
func TestTrackerRandomOps(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomOps(t, seed, 40) })
	}
}

func FuzzTracker(f *testing.F) {
	f.Add(uint64(1), uint8(10))
	f.Add(uint64(99), uint8(30))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) { randomOps(t, seed, int(n%50)) })
}

func randomOps(t *testing.T, seed uint64, batches int) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	root := t.TempDir()
	write(t, root, ".gitignore", "ign/\n", 0o644)
	dirs := []string{"", "a", "a/b", "c", "ign"}
	for _, d := range dirs {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	names := []string{"f1", "f2", "f3", "d1", "d2"}
	randPath := func() string { return filepath.Join(root, pick(dirs), pick(names)) }
	p := newTrackPair(t, root)
	for b := range batches {
		for range 1 + rng.IntN(6) {
			src := randPath()
			op := rng.IntN(9)
			t.Logf("batch %d: op %d on %s", b, op, src[len(root):])
			switch op {
			case 0, 1:
				os.WriteFile(src, []byte(fmt.Sprint(rng.IntN(4))), 0o644)
			case 2:
				fi, err := os.Stat(src)
				if err == nil && fi.Mode().IsRegular() {
					os.WriteFile(src, []byte(fmt.Sprint(rng.IntN(4))), 0o644)
					os.Chtimes(src, fi.ModTime(), fi.ModTime())
				}
			case 3:
				os.Chmod(src, fs0(rng))
			case 4:
				os.RemoveAll(src)
			case 5:
				dst := randPath()
				t.Logf("batch %d:   to %s", b, dst[len(root):])
				os.Rename(src, dst)
			case 6:
				os.Symlink(pick(names), src)
			case 7:
				if os.Mkdir(src, 0o755) == nil {
					os.WriteFile(filepath.Join(src, "in"), []byte("x"), 0o644)
					os.MkdirAll(filepath.Join(src, "sub"), 0o755)
					os.WriteFile(filepath.Join(src, "sub", "deeper"), []byte("y"), 0o644)
				}
			case 8:
				// A second name in an ignored directory is the tracker's
				// blind spot (see the package doc): links stay in sight.
				if dst := randPath(); !strings.Contains(dst, "/ign/") {
					t.Logf("batch %d:   to %s", b, dst[len(root):])
					os.Link(src, dst)
				}
			}
		}
		p.check(t, fmt.Sprintf("seed %d batch %d", seed, b))
	}
}

func fs0(rng *rand.Rand) os.FileMode {
	return []os.FileMode{0o644, 0o600, 0o755, 0o700}[rng.IntN(4)]
}

// TestTrackerNeverListsThroughALink: a directory moved out of the
// workspace keeps its watch, under its old name; when a link to
// elsewhere takes that name, an event from the moved directory must not
// make the tracker list the link's target.
func TestTrackerNeverListsThroughALink(t *testing.T) {
	root, away, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, root, "a/b/f.go", "f", 0o644)
	write(t, elsewhere, "secret", "not in the workspace", 0o600)
	p := newTrackPair(t, root)
	must(t, os.Rename(filepath.Join(root, "a/b"), filepath.Join(away, "b")))
	p.check(t, "moved out")
	must(t, os.Symlink(elsewhere, filepath.Join(root, "a/b")))
	write(t, away, "b/g.go", "written in the moved directory", 0o644)
	p.check(t, "a link where the moved directory was")
}

// TestTrackerOverItsWatchLimit: a workspace with more directories than
// the tracker may watch is scanned in full, correctly, and the tracker is
// not started again at every checkpoint.
func TestTrackerOverItsWatchLimit(t *testing.T) {
	testWatchLimit = 3
	t.Cleanup(func() { testWatchLimit = 0 })
	root := t.TempDir()
	for i := range 6 {
		write(t, root, fmt.Sprintf("d%d/f.go", i), "x", 0o644)
	}
	tracked, err := Open(t.TempDir(), Options{Track: true})
	must(t, err)
	defer tracked.Close()
	full, err := Open(t.TempDir(), Options{})
	must(t, err)
	p := &trackPair{root: root, tracked: tracked, full: full}
	p.check(t, "start")
	if tracked.tr != nil || !tracked.untrackable {
		t.Fatal("a tracker over its limit was kept")
	}
	write(t, root, "d4/f.go", "y", 0o644)
	if !p.check(t, "changed") {
		t.Fatal("not scanned in full")
	}
}

// TestTrackerRootThroughALink: a root named through a symbolic link is
// tracked like any other.
func TestTrackerRootThroughALink(t *testing.T) {
	real := t.TempDir()
	write(t, real, "a/f.go", "f", 0o644)
	root := filepath.Join(t.TempDir(), "ws")
	must(t, os.Symlink(real, root))
	p := newTrackPair(t, root)
	write(t, real, "a/f.go", "changed", 0o644)
	if p.check(t, "changed") {
		t.Fatal("a root named through a link was scanned in full")
	}
}

// TestTrackerChangesEverywhere: changes in more directories than are
// worth listing one by one are recorded by one walk, with the watches
// kept.
func TestTrackerChangesEverywhere(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		write(t, root, fmt.Sprintf("d%02d/f.go", i), "x", 0o644)
	}
	p := newTrackPair(t, root)
	for i := range 40 {
		write(t, root, fmt.Sprintf("d%02d/f.go", i), "changed", 0o644)
		write(t, root, fmt.Sprintf("d%02d/new.go", i), "new", 0o644)
	}
	p.check(t, "changes everywhere")
	if p.tracked.tr == nil {
		t.Fatal("the tracker was dropped")
	}
	write(t, root, "d07/f.go", "again", 0o644)
	if p.check(t, "one more change") {
		t.Fatal("scanned in full after a walk that kept the watches")
	}
}
