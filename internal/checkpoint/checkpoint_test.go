package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// node is what a test compares of one path.
type node struct {
	mode fs.FileMode
	data string // content, or link target
}

// snapshot reads every file and link under root, .git and ignored files
// included.
func snapshot(t *testing.T, root string) map[string]node {
	t.Helper()
	out := map[string]node{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			if rel != "." {
				out[rel+"/"] = node{}
			}
		case d.Type()&fs.ModeSymlink != 0:
			tgt, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = node{mode: fs.ModeSymlink, data: tgt}
		default:
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = node{mode: fi.Mode() & modeMask, data: string(b)}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// part returns the paths of snap that are (outside=false) or are not
// (outside=true) in the recorded set: here, everything but .git/ and build/.
func part(snap map[string]node, outside bool) map[string]node {
	out := map[string]node{}
	for k, v := range snap {
		ext := strings.HasPrefix(k, ".git/") || strings.HasPrefix(k, "build/")
		if ext == outside {
			out[k] = v
		}
	}
	return out
}

func write(t testing.TB, root, rel, data string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func diffSnap(t *testing.T, what string, got, want map[string]node) {
	t.Helper()
	if maps.Equal(got, want) {
		return
	}
	keys := slices.Sorted(maps.Keys(got))
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("%s: %s: got %+v, want %+v", what, k, got[k], want[k])
		}
	}
}

// newWorkspace makes a workspace with a .gitignore, an ignored directory
// and a .git directory; git=false leaves the last out.
func newWorkspace(t *testing.T, git bool) string {
	root := t.TempDir()
	write(t, root, ".gitignore", "build/\n", 0o644)
	write(t, root, "main.go", "package main\n", 0o644)
	write(t, root, "lib/a.go", "package lib\n", 0o644)
	write(t, root, "run.sh", "#!/bin/sh\n", 0o755)
	write(t, root, "build/out.o", "object", 0o644)
	must(t, os.Symlink("main.go", filepath.Join(root, "link")))
	if git {
		write(t, root, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
		write(t, root, ".git/index", "index bytes", 0o644)
	}
	return root
}

func TestRestoreEachCheckpoint(t *testing.T) {
	for _, git := range []bool{true, false} {
		for _, track := range []bool{false, true} {
			name := map[bool]string{true: "git", false: "no-git"}[git] + map[bool]string{true: "-tracked"}[track]
			t.Run(name, func(t *testing.T) { restoreEachCheckpoint(t, git, track) })
		}
	}
}

func restoreEachCheckpoint(t *testing.T, git, track bool) {
	ctx := context.Background()
	root := newWorkspace(t, git)
	s, err := Open(t.TempDir(), Options{Track: track})
	must(t, err)
	defer s.Close()
	steps := []struct {
		name string
		do   func()
	}{
		{"start", func() {}},
		{"edit", func() { write(t, root, "main.go", "package main\n\nfunc main() {}\n", 0o644) }},
		{"create", func() { write(t, root, "new.txt", "new", 0o644) }},
		{"delete", func() { must(t, os.Remove(filepath.Join(root, "lib/a.go"))) }},
		{"chmod", func() { must(t, os.Chmod(filepath.Join(root, "run.sh"), 0o644)) }},
		{"relink", func() {
			must(t, os.Remove(filepath.Join(root, "link")))
			must(t, os.Symlink("new.txt", filepath.Join(root, "link")))
		}},
		{"nested", func() {
			write(t, root, "x/y/z/deep.txt", "deep", 0o600)
			write(t, root, "x/y/other.txt", "other", 0o644)
		}},
		{"unnest", func() { must(t, os.RemoveAll(filepath.Join(root, "x/y/z"))) }},
		{"ignored", func() { write(t, root, "build/later.o", "later", 0o644) }},
	}
	var ids []string
	var snaps []map[string]node
	for _, st := range steps {
		st.do()
		r, err := s.Checkpoint(ctx, []string{root})
		must(t, err)
		if st.name != "start" && st.name != "ignored" && r.Reused {
			t.Fatalf("%s: change not seen", st.name)
		}
		if st.name == "ignored" && !r.Reused {
			t.Errorf("ignored file made a new checkpoint")
		}
		ids = append(ids, r.ID)
		snaps = append(snaps, part(snapshot(t, root), false))
	}
	outside := part(snapshot(t, root), true)
	// Restore in an order that crosses every change both ways.
	for _, i := range []int{0, 8, 3, 6, 1, 7, 2, 5, 4, 0} {
		res, err := s.Restore(ctx, ids[i])
		must(t, err)
		now := snapshot(t, root)
		diffSnap(t, "restore to "+steps[i].name, part(now, false), snaps[i])
		diffSnap(t, "outside after restore to "+steps[i].name, part(now, true), outside)
		if res.Undo == "" {
			t.Fatal("no undo checkpoint")
		}
	}
}

func TestUndoRestore(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	write(t, root, "main.go", "changed", 0o644)
	write(t, root, "made.txt", "made", 0o644)
	before := snapshot(t, root)
	res, err := s.Restore(ctx, first.ID)
	must(t, err)
	if _, err := os.Stat(filepath.Join(root, "made.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("made.txt survived the restore: %v", err)
	}
	undo, target, ok := s.LastRewind()
	if !ok || undo != res.Undo || target != first.ID {
		t.Fatalf("LastRewind = %s %s %v, want %s %s", undo, target, ok, res.Undo, first.ID)
	}
	_, err = s.Restore(ctx, undo)
	must(t, err)
	diffSnap(t, "after undo", snapshot(t, root), before)
}

func TestOverCapFileReported(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	s, err := Open(t.TempDir(), Options{MaxFileBytes: 15})
	must(t, err)
	write(t, root, "big.bin", "0123456789abcdef", 0o644)
	r, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if want := []string{filepath.Join(root, "big.bin")}; !slices.Equal(r.Skipped, want) {
		t.Fatalf("Skipped = %q, want %q", r.Skipped, want)
	}
	write(t, root, "big.bin", "fedcba9876543210!", 0o644)
	write(t, root, "huge-new.bin", "a new file over the cap", 0o644)
	res, err := s.Restore(ctx, r.ID)
	must(t, err)
	if want := []string{filepath.Join(root, "big.bin")}; !slices.Equal(res.NotRestored, want) {
		t.Errorf("NotRestored = %q, want %q", res.NotRestored, want)
	}
	if want := []string{filepath.Join(root, "huge-new.bin")}; !slices.Equal(res.LeftInPlace, want) {
		t.Errorf("LeftInPlace = %q, want %q", res.LeftInPlace, want)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "huge-new.bin")); string(b) != "a new file over the cap" {
		t.Errorf("over-cap file created since was touched: %q", b)
	}
}

func TestCrashDuringRestoreThenRerun(t *testing.T) {
	ctx := context.Background()
	for _, after := range []int{1, 5, 12} {
		root := newWorkspace(t, true)
		s, err := Open(t.TempDir(), Options{})
		must(t, err)
		first, err := s.Checkpoint(ctx, []string{root})
		must(t, err)
		want := snapshot(t, root)
		for i := range 10 {
			write(t, root, filepath.Join("gen", string(rune('a'+i))+".txt"), "gen", 0o644)
			write(t, root, "main.go", strings.Repeat("x", i), 0o644)
		}
		write(t, root, "lib/a.go", "changed", 0o644)
		changed := snapshot(t, root)
		boom := errors.New("crash")
		afterChange = func(n int) error {
			if n == after {
				return boom
			}
			return nil
		}
		_, err = s.Restore(ctx, first.ID)
		afterChange = nil
		if !errors.Is(err, boom) {
			t.Fatalf("after %d: restore error %v, want the injected crash", after, err)
		}
		if tgt, ok := s.Pending(); !ok || tgt != first.ID {
			t.Fatalf("after %d: Pending = %q %v", after, tgt, ok)
		}
		res, err := s.Restore(ctx, first.ID)
		must(t, err)
		diffSnap(t, "rerun", snapshot(t, root), want)
		if _, ok := s.Pending(); ok {
			t.Error("journal left after completion")
		}
		// The undo goes back to before the first, interrupted attempt.
		_, err = s.Restore(ctx, res.Undo)
		must(t, err)
		diffSnap(t, "undo after crash", snapshot(t, root), changed)
	}
}

func TestUnchangedTreeReadsNothing(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	time.Sleep(150 * time.Millisecond) // out of the racy window
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	// A fresh store object (a new process) goes by HEAD.
	s2, err := Open(s.Dir(), Options{})
	must(t, err)
	r, err := s2.Checkpoint(ctx, []string{root})
	must(t, err)
	if !r.Reused || r.ID != first.ID || r.Read != 0 {
		t.Fatalf("unchanged tree: %+v", r)
	}
	write(t, root, "main.go", "package main // edited\n", 0o644)
	r, err = s2.Checkpoint(ctx, []string{root})
	must(t, err)
	if r.Reused || r.Read != 1 {
		t.Fatalf("one file changed: read %d, reused %v", r.Read, r.Reused)
	}
}

func TestRacyFilesAreReadAgain(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root}) // files written just now
	must(t, err)
	r, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if r.Read == 0 || !r.Reused || r.ID != first.ID {
		t.Fatalf("files changed within the racy window were trusted by stat: %+v", r)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := &Manifest{ID: "0123456789abcdef-000000", Created: time.Unix(0, 1700000000123456789), Roots: []string{"/w s", "/other\nroot"},
		Entries: []Entry{
			{Root: 0, Rel: "a b/\"q\".go", Kind: KindFile, Mode: 0o755 | fs.ModeSetuid, Size: 3, Mtime: 5, Ctime: 6, Ino: 7, Hash: strings.Repeat("ab", 32)},
			{Root: 1, Rel: "l", Kind: KindLink, Target: "../x y"},
			{Root: 1, Rel: "big", Kind: KindSkipped, Size: 1 << 40, Mode: 0o644},
		}}
	got, err := parseManifest(m.ID, m.encode())
	must(t, err)
	if !got.Created.Equal(m.Created) || !slices.Equal(got.Roots, m.Roots) || !slices.Equal(got.Entries, m.Entries) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, m)
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(manifestMagic + "\ncreated 1\nroot \"/w\"\nf 0 420 1 2 3 4 " + strings.Repeat("0", 64) + " \"a\"\n"))
	f.Add([]byte(manifestMagic + "\nroot \"/w\"\nl 0 0 0 0 0 0 \"t\" \"../x\"\n"))
	f.Add([]byte(manifestMagic + "\nroot \"/w\"\ns 0 420 99 0 0 0 - \".git/config\"\n"))
	f.Add([]byte(manifestMagic + "\nparent 0123456789abcdef-00aa11 3\nroot \"/w\"\nd 0 \"gone.txt\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest("0123456789abcdef-000000", data)
		if err != nil {
			return
		}
		for _, e := range m.Entries {
			if !validRel(e.Rel) || e.Root < 0 || e.Root >= len(m.Roots) {
				t.Fatalf("accepted an entry outside its root: %+v", e)
			}
		}
		again, err := parseManifest(m.ID, m.encode())
		if err != nil || !slices.Equal(again.Entries, m.Entries) || !slices.Equal(again.Deleted, m.Deleted) || again.Parent != m.Parent {
			t.Fatalf("re-encoding changed the manifest: %v", err)
		}
	})
}

func TestDiff(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	a, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	write(t, root, "main.go", "changed", 0o644)
	write(t, root, "added.txt", "new", 0o644)
	must(t, os.Remove(filepath.Join(root, "lib/a.go")))
	must(t, os.Chmod(filepath.Join(root, "run.sh"), 0o600))
	b, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	ma, err := s.Load(a.ID)
	must(t, err)
	mb, err := s.Load(b.ID)
	must(t, err)
	var got []string
	for _, c := range Diff(ma, mb) {
		got = append(got, string(c.Op)+" "+c.Rel)
	}
	want := []string{"+ added.txt", "- lib/a.go", "M main.go", "M run.sh"}
	if !slices.Equal(got, want) {
		t.Fatalf("Diff = %q, want %q", got, want)
	}
}

func TestTooLargeWorkspaceIsRefused(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	for _, o := range []Options{{MaxFiles: 3}, {MaxReadBytes: 20}} {
		s, err := Open(t.TempDir(), o)
		must(t, err)
		if _, err := s.Checkpoint(ctx, []string{root}); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v: err = %v, want ErrTooLarge", o, err)
		}
		if ids, _ := s.IDs(); len(ids) != 0 {
			t.Errorf("%+v: a refused checkpoint was stored", o)
		}
	}
}

// Checkpoints that change a few files are stored as deltas, in chains no
// longer than maxDepth, and load whole; pruning keeps the parents of the
// checkpoints it keeps.
func TestDeltaChainsLoadWholeAndSurvivePruning(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	for i := range 12 {
		write(t, root, fmt.Sprintf("pad/%02d.txt", i), "pad", 0o644)
	}
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	var ids []string
	var wants [][]string
	deltas := 0
	for i := range maxDepth + 10 {
		write(t, root, fmt.Sprintf("pad/%02d.txt", i%12), fmt.Sprint("edit ", i), 0o644)
		if i%7 == 3 {
			must(t, os.Remove(filepath.Join(root, fmt.Sprintf("pad/%02d.txt", i%12))))
		}
		r, err := s.Checkpoint(ctx, []string{root})
		must(t, err)
		ids = append(ids, r.ID)
		var want []string
		for _, e := range s.cache.m.Entries {
			want = append(want, e.Rel+" "+e.Hash+e.Target)
		}
		wants = append(wants, want)
		raw, err := s.loadRaw(r.ID)
		must(t, err)
		if raw.Parent != "" {
			deltas++
		}
		if raw.Depth > maxDepth {
			t.Fatalf("chain of depth %d", raw.Depth)
		}
	}
	if deltas < maxDepth {
		t.Fatalf("only %d of %d checkpoints stored as deltas", deltas, len(ids))
	}
	check := func(what string, from int) {
		for i := from; i < len(ids); i++ {
			m, err := s.Load(ids[i])
			must(t, err)
			var got []string
			for _, e := range m.Entries {
				got = append(got, e.Rel+" "+e.Hash+e.Target)
			}
			if !slices.Equal(got, wants[i]) {
				t.Fatalf("%s: checkpoint %d loads as\n%q\nwant\n%q", what, i, got, wants[i])
			}
		}
	}
	check("before pruning", 0)
	n, err := s.Prune(time.Now().Add(time.Hour)) // everything is old: keeps the newest and its chain
	must(t, err)
	if n == 0 {
		t.Fatal("nothing pruned")
	}
	check("after pruning", len(ids)-1)
	_, err = s.Restore(ctx, ids[len(ids)-1])
	must(t, err)
}
