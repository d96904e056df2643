package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A manifest that fits in one disk block is stored as it is encoded:
// compressing it saves no block, and the compressor's set-up was most
// of the time a small checkpoint took. A larger one is compressed. Both
// load back whole.
func TestManifestCompressedOnlyWhenLarge(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		files      int
		compressed bool
	}{{2, false}, {400, true}} {
		t.Run(fmt.Sprint(tc.files, " files"), func(t *testing.T) {
			root := t.TempDir()
			for i := range tc.files {
				must(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%04d.txt", i)), []byte(fmt.Sprint("content ", i)), 0o644))
			}
			s, err := Open(t.TempDir(), Options{})
			must(t, err)
			defer s.Close()
			r, err := s.Checkpoint(ctx, []string{root})
			must(t, err)
			raw, err := os.ReadFile(s.manifestPath(r.ID))
			must(t, err)
			if got := !bytes.HasPrefix(raw, []byte(manifestMagic)); got != tc.compressed {
				t.Fatalf("manifest of %d files compressed = %v, want %v (%d bytes)", tc.files, got, tc.compressed, len(raw))
			}
			m, err := s.Load(r.ID)
			must(t, err)
			if len(m.Entries) != tc.files {
				t.Fatalf("loaded %d entries, want %d", len(m.Entries), tc.files)
			}
			// What was saved ahead of a reserved checkpoint is compressed
			// whatever its size, as older versions read it, and loads.
			id := s.NewID()
			must(t, s.SaveAhead(ctx, []string{root}, id, []string{filepath.Join(root, "f0000.txt")}))
			ahead, err := s.loadAhead(id)
			must(t, err)
			if !slices.ContainsFunc(ahead.Entries, func(e Entry) bool { return e.Rel == "f0000.txt" }) {
				t.Fatalf("the record saved ahead lacks f0000.txt: %+v", ahead.Entries)
			}
		})
	}
}
