package checkpoint

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Full blocks are compressed at the better level, short ones and the
// index at the fastest: a pack holding both restores byte for byte.
func TestPackOfFullAndShortBlocksReadsBack(t *testing.T) {
	if got, better := blockEncoder(packBlockBytes), packEncoder(); got != better {
		t.Fatal("a full block is not compressed at the better level")
	}
	if fast, _ := codecs(); blockEncoder(1000) != fast {
		t.Fatal("a short block is not compressed at the fastest level")
	}
	ctx := context.Background()
	root := newWorkspace(t, true)
	for i := range 80 {
		body := fmt.Sprintf("package big\n\n// %d\n%s", i, strings.Repeat(fmt.Sprintf("var v%d = %q\n", i, strings.Repeat("x", i%13+1)), 900))
		write(t, root, fmt.Sprintf("big/f%02d.go", i), body, 0o644)
	}
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	defer s.Close()
	want := snapshot(t, root)
	res, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	if n := len(packFiles(t, s)); n != 1 {
		t.Fatalf("%d packs, want 1", n)
	}
	must(t, s.Verify(res.ID))
	for i := range 80 {
		write(t, root, fmt.Sprintf("big/f%02d.go", i), "changed", 0o644)
	}
	s2, err := Open(s.Dir(), Options{})
	must(t, err)
	defer s2.Close()
	_, err = s2.Restore(ctx, res.ID)
	must(t, err)
	diffSnap(t, "restored", snapshot(t, root), want)
}
