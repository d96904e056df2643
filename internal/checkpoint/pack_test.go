package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeMany writes n small files of source-like text under dir of root.
func writeMany(t *testing.T, root, dir string, n int, salt string) {
	t.Helper()
	for i := range n {
		body := fmt.Sprintf("package %s\n\n// F%d returns %d: %s.\nfunc F%d() int { return %d }\n", dir, i, i, strings.Repeat("a comment that repeats ", i%5+1), i, i)
		write(t, root, fmt.Sprintf("%s/f%03d_%s.go", dir, i, salt), body, 0o644)
	}
}

// storeFiles returns the regular files under dir of the store.
func storeFiles(t *testing.T, s *Store, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(s.Dir(), dir), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func packFiles(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, p := range storeFiles(t, s, "packs") {
		if strings.HasSuffix(p, packExt) {
			out = append(out, p)
		}
	}
	return out
}

// A checkpoint that stores many new small contents writes one pack, not
// a file per content, and everything restores byte for byte, from the
// pack and from loose objects written before it.
func TestManySmallFilesArePacked(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	small, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if n := len(packFiles(t, s)); n != 0 {
		t.Fatalf("a checkpoint of %d files wrote %d packs", small.Files, n)
	}
	loose := len(storeFiles(t, s, "objects"))
	want0 := snapshot(t, root)
	writeMany(t, root, "pkg", 300, "a")
	big, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if n := len(packFiles(t, s)); n != 1 {
		t.Fatalf("a checkpoint of 300 new files wrote %d packs, want 1", n)
	}
	if n := len(storeFiles(t, s, "objects")); n != loose {
		t.Fatalf("a checkpoint of 300 new files wrote %d loose objects", n-loose)
	}
	want1 := snapshot(t, root)
	must(t, s.Verify(big.ID))
	// Change most of it, then go back to each.
	for i := range 300 {
		if i%3 == 0 {
			must(t, os.Remove(filepath.Join(root, fmt.Sprintf("pkg/f%03d_a.go", i))))
		} else {
			write(t, root, fmt.Sprintf("pkg/f%03d_a.go", i), "edited", 0o644)
		}
	}
	_, err = s.Restore(ctx, big.ID)
	must(t, err)
	diffSnap(t, "restored from the pack", snapshot(t, root), want1)
	_, err = s.Restore(ctx, small.ID)
	must(t, err)
	diffSnap(t, "restored from loose objects", snapshot(t, root), want0)
	// A new process, which has not read the pack yet, restores from it.
	s2, err := Open(s.Dir(), Options{})
	must(t, err)
	_, err = s2.Restore(ctx, big.ID)
	must(t, err)
	diffSnap(t, "restored by another process", snapshot(t, root), want1)
	for _, id := range []string{small.ID, big.ID} {
		must(t, s2.Verify(id))
	}
}

// A content that is already packed is not stored again.
func TestPackedContentIsNotStoredAgain(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	writeMany(t, root, "pkg", 100, "a")
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	_, err = s.Checkpoint(ctx, []string{root})
	must(t, err)
	before := len(storeFiles(t, s, ""))
	// The same contents under other names, seen by a new process.
	must(t, os.Rename(filepath.Join(root, "pkg"), filepath.Join(root, "moved")))
	s2, err := Open(s.Dir(), Options{})
	must(t, err)
	_, err = s2.Checkpoint(ctx, []string{root})
	must(t, err)
	if after := storeFiles(t, s, ""); len(after) != before+2 { // a manifest and its change record
		t.Fatalf("moving packed files stored %d files, want 2 (%q)", len(after)-before, after)
	}
}

// A damaged pack is refused like a damaged loose object: a restore that
// needs one of its contents fails naming it, and changes nothing; Verify
// says the same.
func TestRestoreRefusesDamagedPack(t *testing.T) {
	flip := func(at func(p *packIndex, size int64) int64) func(t *testing.T, pack string, p *packIndex) {
		return func(t *testing.T, pack string, p *packIndex) {
			b, err := os.ReadFile(pack)
			must(t, err)
			b[at(p, int64(len(b)))] ^= 0x10
			must(t, os.WriteFile(pack, b, 0o600))
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, pack string, p *packIndex)
		want   error
	}{
		{"flipped bit in the magic", flip(func(*packIndex, int64) int64 { return 2 }), ErrObjectCorrupt},
		{"flipped bit in a block's frame header", flip(func(p *packIndex, _ int64) int64 { return int64(p.blocks[0].off) + 5 }), ErrObjectCorrupt},
		{"flipped bit in a block", flip(func(p *packIndex, _ int64) int64 {
			return int64(p.blocks[0].off) + int64(p.blocks[0].clen)/2
		}), ErrObjectCorrupt},
		{"flipped bit at a block's end", flip(func(p *packIndex, _ int64) int64 {
			return int64(p.blocks[0].off) + int64(p.blocks[0].clen) - 1
		}), ErrObjectCorrupt},
		{"flipped bit in the index", flip(func(_ *packIndex, n int64) int64 { return n - packFooterLen - 3 }), ErrObjectCorrupt},
		{"flipped bit in the footer", flip(func(_ *packIndex, n int64) int64 { return n - 20 }), ErrObjectCorrupt},
		{"truncated", func(t *testing.T, pack string, _ *packIndex) {
			fi, err := os.Stat(pack)
			must(t, err)
			must(t, os.Truncate(pack, fi.Size()/2))
		}, ErrObjectCorrupt},
		{"truncated to nothing", func(t *testing.T, pack string, _ *packIndex) { must(t, os.Truncate(pack, 0)) }, ErrObjectCorrupt},
		{"missing", func(t *testing.T, pack string, _ *packIndex) { must(t, os.Remove(pack)) }, ErrObjectMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			root := newWorkspace(t, true)
			writeMany(t, root, "pkg", 100, "a")
			s, err := Open(t.TempDir(), Options{})
			must(t, err)
			first, err := s.Checkpoint(ctx, []string{root})
			must(t, err)
			packs := packFiles(t, s)
			if len(packs) != 1 {
				t.Fatalf("%d packs, want 1", len(packs))
			}
			p, err := loadPackIndex(packs[0], filepath.Base(packs[0]))
			must(t, err)
			const rel = "pkg/f007_a.go"
			write(t, root, rel, "edited", 0o644)
			before := snapshot(t, root)
			tc.damage(t, packs[0], p)
			// A new process, as a damaged pack is found by one.
			s, err = Open(s.Dir(), Options{})
			must(t, err)
			for what, err := range map[string]error{"Verify": s.Verify(first.ID), "Restore": func() error {
				_, err := s.Restore(ctx, first.ID)
				return err
			}()} {
				var oe *ObjectError
				if !errors.As(err, &oe) || !errors.Is(err, tc.want) {
					t.Fatalf("%s = %v, want an ObjectError of %v", what, err, tc.want)
				}
				if !strings.Contains(err.Error(), "f0") {
					t.Errorf("%s: the error names no file: %v", what, err)
				}
			}
			diffSnap(t, "after the refused restore", snapshot(t, root), before)
			if tgt, ok := s.Pending(); ok {
				t.Errorf("a refused restore left a journal (target %s)", tgt)
			}
		})
	}
}

// A pack is durable before a manifest names its contents, and a pack
// cut short (a crash, a full disk) leaves nothing: no pack, no temporary
// file, no checkpoint.
func TestPackIsDurableFirstAndAFailedPackLeavesNothing(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	for i := range 600 { // 2.4 MB: three blocks
		write(t, root, fmt.Sprintf("pkg%d/f%03d.txt", i%4, i), strings.Repeat(fmt.Sprintf("line %d of file %d\n", i, i), 200), 0o644)
	}
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	must(t, err)
	fail := errors.New("disk full")
	packBlockHook = func(n int) error {
		if n == 1 {
			return fail
		}
		return nil
	}
	t.Cleanup(func() { packBlockHook = nil })
	if _, err := s.Checkpoint(ctx, []string{root}); !errors.Is(err, fail) {
		t.Fatalf("Checkpoint with a failing pack = %v", err)
	}
	if files := storeFiles(t, s, "packs"); len(files) != 0 {
		t.Fatalf("a failed pack left %q", files)
	}
	if ids, _ := s.IDs(); len(ids) != 0 {
		t.Fatalf("a failed pack left checkpoints %q", ids)
	}
	packBlockHook = nil
	var log []string
	syncHook = func(what string) { log = append(log, what) }
	t.Cleanup(func() { syncHook = nil })
	r, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	packs := packFiles(t, s)
	if len(packs) != 1 {
		t.Fatalf("%d packs, want 1", len(packs))
	}
	at, man := -1, -1
	for i, l := range log {
		switch l {
		case "pack " + filepath.Base(packs[0]):
			at = i
		case "manifest " + r.ID:
			man = i
		}
	}
	if at < 0 || man < at || !strings.Contains(strings.Join(log[at-1:at], " "), "dir "+filepath.Join(dir, "packs")) {
		t.Fatalf("the pack (and its directory) was not synced before the manifest: %q", log)
	}
}

// Prune removes a pack none of whose contents a checkpoint keeps, and
// rewrites one that keeps few, so that the store does not grow without
// bound; what is kept restores.
func TestPruneRemovesAndRewritesPacks(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	writeMany(t, root, "old", 200, "a")
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	_, err = s.Checkpoint(ctx, []string{root})
	must(t, err)
	first := packFiles(t, s)
	// All of old/ replaced: the first pack dies whole.
	must(t, os.RemoveAll(filepath.Join(root, "old")))
	writeMany(t, root, "mid", 200, "b")
	_, err = s.Checkpoint(ctx, []string{root})
	must(t, err)
	second := packFiles(t, s)
	// Most of mid/ replaced: the second pack keeps a tenth.
	for i := range 200 {
		if i%10 != 0 {
			must(t, os.Remove(filepath.Join(root, fmt.Sprintf("mid/f%03d_b.go", i))))
		}
	}
	writeMany(t, root, "new", 200, "c")
	last, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	all := packFiles(t, s)
	if len(first) != 1 || len(second) != 2 || len(all) != 3 {
		t.Fatalf("packs: %d, %d, %d; want 1, 2, 3", len(first), len(second), len(all))
	}
	size := func() int64 { return dirBytesT(t, s.Dir()) }
	before := size()
	lastM := mustLoad(t, s, last.ID)
	removed, err := s.Prune(lastM.Created)
	must(t, err)
	if removed != 2 {
		t.Fatalf("Prune removed %d checkpoints, want 2", removed)
	}
	after := packFiles(t, s)
	for _, p := range append(first, second...) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there after Prune", filepath.Base(p))
		}
	}
	if len(after) != 2 {
		t.Errorf("after Prune: %d packs, want 2 (the newest, and the survivors of the second rewritten)", len(after))
	}
	if got := size(); got > before*2/3 {
		t.Errorf("Prune left %d of %d bytes", got, before)
	}
	must(t, s.Verify(last.ID))
	want := snapshot(t, root)
	must(t, os.RemoveAll(filepath.Join(root, "mid")))
	s2, err := Open(s.Dir(), Options{})
	must(t, err)
	_, err = s2.Restore(ctx, last.ID)
	must(t, err)
	diffSnap(t, "restored after Prune", snapshot(t, root), want)
	// Nothing more to do: a second Prune changes nothing.
	_, err = s.Prune(time.Now())
	must(t, err)
	if again := packFiles(t, s); len(again) != len(after) {
		t.Errorf("a second Prune went from %d packs to %d", len(after), len(again))
	}
}

func dirBytesT(t *testing.T, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Two processes on one store write packs and prune at once: every
// checkpoint left verifies whole.
func TestTwoStoresWritingPacks(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	dir := t.TempDir()
	a, err := Open(dir, Options{})
	must(t, err)
	b, err := Open(dir, Options{Track: true})
	must(t, err)
	defer b.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for w, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				sub := fmt.Sprintf("w%d", w)
				os.RemoveAll(filepath.Join(root, sub))
				for k := range 40 {
					p := filepath.Join(root, sub, fmt.Sprintf("f%d.txt", k))
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.WriteFile(p, []byte(fmt.Sprintf("writer %d round %d file %d\n", w, i, k)), 0o644)
				}
				if _, err := s.Checkpoint(ctx, []string{root}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 10 {
			if _, err := a.Prune(time.Now()); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(packFiles(t, a)) == 0 {
		t.Fatal("no pack was written")
	}
	c, err := Open(dir, Options{})
	must(t, err)
	ids, err := c.IDs()
	must(t, err)
	for _, id := range ids {
		if err := c.Verify(id); err != nil {
			t.Errorf("checkpoint %s: %v", id, err)
		}
	}
}

// FuzzPackIndex feeds the pack reader damaged and crafted packs: it must
// never panic nor hand out a content that is not what its hash names.
func FuzzPackIndex(f *testing.F) {
	dir := f.TempDir()
	w, err := newPackWriter(dir)
	if err != nil {
		f.Fatal(err)
	}
	objs := []packObj{{data: []byte("package main\n")}, {data: []byte(strings.Repeat("compressible ", 100))}, {data: nil}}
	for i := range objs {
		objs[i].hash = [32]byte(sha256sum(objs[i].data))
	}
	if err := w.add(objs[:2]); err != nil {
		f.Fatal(err)
	}
	if err := w.add(objs[2:]); err != nil {
		f.Fatal(err)
	}
	p, err := w.finish()
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, p.name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:len(packMagic)+packFooterLen])
	f.Add([]byte(packMagic + strings.Repeat("\x00", packFooterLen-8) + packFooterMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := readPackIndex(bytes.NewReader(data), int64(len(data)), "fuzz.pack")
		if err != nil {
			if !errors.Is(err, errPack) {
				t.Fatalf("an error that is not errPack: %v", err)
			}
			return
		}
		for i := range p.len() {
			e := p.entryAt(i)
			blk, err := p.readBlock(bytes.NewReader(data), e.block)
			if err != nil {
				continue
			}
			got := blk[e.off : e.off+e.size]
			if hashIs(got, fmt.Sprintf("%x", p.hashAt(i))) != bytes.Equal(sha256sum(got), p.hashAt(i)) {
				t.Fatal("hash checks disagree")
			}
		}
	})
}

// FuzzPackIndexBody feeds the parser of an index, once its checksum has
// passed, crafted contents: what it accepts must keep every content
// inside its block and be found by its hash.
func FuzzPackIndexBody(f *testing.F) {
	dir := f.TempDir()
	w, err := newPackWriter(dir)
	if err != nil {
		f.Fatal(err)
	}
	for i := range 3 {
		var objs []packObj
		for k := range 5 {
			d := []byte(fmt.Sprint("content ", i, k))
			objs = append(objs, packObj{hash: [32]byte(sha256sum(d)), data: d})
		}
		if err := w.add(objs); err != nil {
			f.Fatal(err)
		}
	}
	p, err := w.finish()
	if err != nil {
		f.Fatal(err)
	}
	body := binaryIndex(p)
	f.Add(body, uint64(1000))
	f.Add(body[:len(body)-1], uint64(1000))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0}, uint64(0))
	f.Fuzz(func(t *testing.T, idx []byte, limit uint64) {
		p, err := parsePackIndex("fuzz.pack", idx, limit)
		if err != nil {
			return
		}
		var raw uint64
		for i := range p.len() {
			e := p.entryAt(i)
			if int(e.block) >= len(p.blocks) || uint64(e.off)+uint64(e.size) > uint64(p.blocks[e.block].rlen) {
				t.Fatalf("content %d lies outside its block: %+v", i, e)
			}
			if got, ok := p.find(p.hashAt(i)); !ok || got != e {
				t.Fatalf("content %d not found by its hash", i)
			}
			raw += uint64(e.size)
		}
		for _, b := range p.blocks {
			if b.off+uint64(b.clen) > limit || b.rlen > maxPackBlock {
				t.Fatalf("a block outside the pack: %+v", b)
			}
		}
		if raw != p.raw {
			t.Fatalf("raw %d, counted %d", p.raw, raw)
		}
	})
}

// binaryIndex returns the index of p as a pack stores it, decompressed.
func binaryIndex(p *packIndex) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, uint32(p.len()))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p.blocks)))
	b = append(append(b, p.hashes...), p.cols...)
	for _, blk := range p.blocks {
		b = binary.LittleEndian.AppendUint64(b, blk.off)
		b = binary.LittleEndian.AppendUint32(b, blk.clen)
		b = binary.LittleEndian.AppendUint32(b, blk.rlen)
	}
	return b
}

// A process that read a pack's index before another process's Prune
// rewrote it still reads the contents, from the new pack, and does not
// take contents of the removed pack as stored.
func TestReadAfterAnotherProcessRewroteThePack(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	writeMany(t, root, "mid", 200, "a")
	dir := t.TempDir()
	a, err := Open(dir, Options{})
	must(t, err)
	_, err = a.Checkpoint(ctx, []string{root})
	must(t, err)
	for i := range 200 {
		if i%10 != 0 {
			write(t, root, fmt.Sprintf("mid/f%03d_a.go", i), fmt.Sprint("rewritten ", i, strings.Repeat(" text", 50)), 0o644)
		}
	}
	second, err := a.Checkpoint(ctx, []string{root})
	must(t, err)
	must(t, a.Verify(second.ID)) // a has read both indexes
	old := packFiles(t, a)
	reader, err := Open(dir, Options{}) // reads without the lock, as Verify and Content do
	must(t, err)
	must(t, reader.Verify(second.ID))
	b, err := Open(dir, Options{})
	must(t, err)
	if _, err := b.Prune(mustLoad(t, b, second.ID).Created); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old[0]); err == nil {
		t.Fatalf("the first pack was not rewritten: %q", packFiles(t, b))
	}
	// A content only the removed pack held, written again: a stores it.
	write(t, root, "mid/f001_a.go", fmt.Sprintf("package mid\n\n// F1 returns 1: %s.\nfunc F1() int { return 1 }\n", strings.Repeat("a comment that repeats ", 2)), 0o644)
	r, err := a.Checkpoint(ctx, []string{root})
	must(t, err)
	must(t, b.Verify(r.ID))
	m := mustLoad(t, a, second.ID)
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Rel == "mid/f000_a.go" {
			if _, err := reader.Content(e); err != nil {
				t.Fatalf("reading a content whose pack was rewritten: %v", err)
			}
		}
	}
}
