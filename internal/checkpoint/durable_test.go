package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNewContentIsDurableBeforeTheManifest checks the order of the
// syncs: every content a new checkpoint names was synced (or the whole
// file system was) before the manifest, and the manifest before HEAD, so
// that a crash never leaves a checkpoint naming content that is not on
// disk. The three ways of syncing are exercised: file by file for a few
// new contents, the whole file system for many loose ones, and the pack
// of a checkpoint that packs them.
func TestNewContentIsDurableBeforeTheManifest(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "loose", true: "packed"}[packed], func(t *testing.T) {
			if !packed {
				min := packMinObjects
				packMinObjects = 1 << 30
				t.Cleanup(func() { packMinObjects = min })
			}
			newContentIsDurableBeforeTheManifest(t, packed)
		})
	}
}

func newContentIsDurableBeforeTheManifest(t *testing.T, packed bool) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	for i := range 100 {
		write(t, root, filepath.Join("many", strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26))), string(rune(i)), 0o644)
	}
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	var log []string
	// named holds, for each sync of contents, the manifests that had
	// their final names at that moment.
	named := map[int][]string{}
	syncHook = func(what string) {
		if strings.HasPrefix(what, "blob ") || what == "filesystem" || strings.HasPrefix(what, "pack ") {
			ents, _ := os.ReadDir(filepath.Join(s.Dir(), "manifests"))
			for _, e := range ents {
				named[len(log)] = append(named[len(log)], e.Name())
			}
		}
		log = append(log, what)
	}
	t.Cleanup(func() { syncHook = nil })
	check := func(what string, r Result) {
		t.Helper()
		man := slices.Index(log, "manifest "+r.ID)
		head := slices.Index(log, "head "+r.ID)
		if man < 0 || head < man {
			t.Fatalf("%s: manifest synced at %d, HEAD at %d: %q", what, man, head, log)
		}
		for at, names := range named {
			if slices.Contains(names, r.ID) {
				t.Errorf("%s: the manifest had its name while contents were synced (%s)", what, log[at])
			}
		}
		m, err := s.Load(r.ID)
		must(t, err)
		fsAt := slices.Index(log, "filesystem")
		packAt := slices.IndexFunc(log, func(l string) bool { return strings.HasPrefix(l, "pack ") })
		for _, e := range m.Entries {
			if e.Kind != KindFile {
				continue
			}
			if !s.hasLoose(e.Hash) {
				if !s.packs.has(e.Hash, e.Size) || packAt < 0 || packAt > man {
					t.Errorf("%s: %s's content is neither loose nor in a pack synced before the manifest", what, e.Rel)
				}
				continue
			}
			i := slices.Index(log, "blob "+e.Hash)
			if (i < 0 || i > man) && (fsAt < 0 || fsAt > man) {
				t.Errorf("%s: %s's content was not synced before the manifest", what, e.Rel)
			}
			if i >= 0 && !slices.Contains(log[i:man], "dir "+filepath.Dir(s.blobPath(e.Hash))) && (fsAt < 0 || fsAt > man) {
				t.Errorf("%s: %s's directory entry was not synced before the manifest", what, e.Rel)
			}
		}
	}
	r, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if !packed && !slices.Contains(log, "filesystem") {
		t.Errorf("a cold checkpoint of %d files synced file by file: %q", r.Files, log)
	}
	if packed != slices.ContainsFunc(log, func(l string) bool { return strings.HasPrefix(l, "pack ") }) {
		t.Errorf("a cold checkpoint of %d files, packed %v: %q", r.Files, packed, log)
	}
	check("cold", r)
	cold := len(log)
	write(t, root, "main.go", "changed", 0o644)
	r, err = s.Checkpoint(ctx, []string{root})
	must(t, err)
	if slices.Contains(log[cold:], "filesystem") {
		t.Errorf("one new content synced the whole file system")
	}
	check("one changed", r)
}

// TestTruncatedContentIsWrittenAgain: content left short by a crash
// before it was synced is not taken as stored.
func TestTruncatedContentIsWrittenAgain(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	r, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	m, err := s.Load(r.ID)
	must(t, err)
	var blob string
	for _, e := range m.Entries {
		if e.Rel == "main.go" {
			blob = s.blobPath(e.Hash)
		}
	}
	must(t, os.Truncate(blob, 0))
	// A new process, its cache gone; main.go is read again (new stat).
	write(t, root, "main.go", "package main\n", 0o644)
	s2, err := Open(s.Dir(), Options{})
	must(t, err)
	_, err = s2.Checkpoint(ctx, []string{root})
	must(t, err)
	if b, _ := os.ReadFile(blob); string(b) != "package main\n" {
		t.Fatalf("the truncated content was kept: %q", b)
	}
}
