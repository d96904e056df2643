package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriteFileSwapRace writes 2,000 files into dir/ while another
// goroutine keeps exchanging dir with a symlink to a directory outside the
// workspace (renameat2 RENAME_EXCHANGE, atomic in the kernel). A write
// that resolves the path and then opens it by name lands outside whenever
// the swap falls between the two; a write that opens beneath the root
// without following links cannot. No file may appear outside, and every
// write reported as done must have its file inside the workspace.
//
// Each try also calls Workspace.writeFile directly with the same kind of
// path, so that the descriptor walk is raced itself and not only the
// Resolve check before it; the "walk" run does that without openat2.
func TestWriteFileSwapRace(t *testing.T) {
	t.Run("openat2", func(t *testing.T) { swapRace(t, true) })
	t.Run("walk", func(t *testing.T) {
		forceWalk(t, true)
		swapRace(t, false)
	})
}

func swapRace(t *testing.T, viaTool bool) {
	root, ws := ftWorkspace(t)
	outside := t.TempDir()
	dir, link := filepath.Join(root, "dir"), filepath.Join(root, "swap")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, outside, link)
	if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2(RENAME_EXCHANGE) unavailable here: %v", err)
	}

	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
		}
	}()

	const tries = 2000
	wf := NewWriteFile(ws)
	ok := make(map[string]bool, 2*tries)
	for i := range tries {
		if viaTool {
			name := fmt.Sprintf("file%d", i)
			res := ftExec(t, wf, map[string]any{"file_path": "dir/" + name, "content": "x"})
			ok[name] = !res.IsError
		}
		name := fmt.Sprintf("direct%d", i)
		_, err := ws.writeFile(filepath.Join(dir, name), []byte("x"))
		ok[name] = err == nil
	}
	stop.Store(true)
	wg.Wait()

	escaped, _ := os.ReadDir(outside)
	if len(escaped) > 0 {
		t.Errorf("%d of %d writes landed outside the workspace (first %s)", len(escaped), len(ok), escaped[0].Name())
	}
	inside := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			inside[d.Name()] = true
		}
		return nil
	})
	reported, lost := 0, 0
	for name, done := range ok {
		if !done {
			continue
		}
		reported++
		if !inside[name] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d writes reported done have no file inside the workspace", lost)
	}
	if reported == 0 {
		t.Error("no write succeeded: the test proves nothing")
	}
	t.Logf("%d swaps, %d of %d writes done, %d refused", swaps.Load(), reported, len(ok), len(ok)-reported)
}
