package customcmd

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A huge command file in a project's folder costs the size cap, not its
// size, and is reported.
func TestLoadReadsAHugeFileOnlyUpToTheCap(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cmds, errs := Load(Dir{Path: dir, Source: "project"})
	runtime.ReadMemStats(&after)
	if len(cmds) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "more than") {
		t.Fatalf("cmds %v, errs %v", cmds, errs)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("loading a 100 MiB command file allocated %d bytes", alloc)
	}
}
