//go:build unix

package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestSIGKILLDuringRestore kills a process in the middle of a restore
// (after 20 of 200 changes) and checks that restoring again completes it,
// with the undo checkpoint of the state before the first attempt.
func TestSIGKILLDuringRestore(t *testing.T) {
	if dir := os.Getenv("CHECKPOINT_CRASH_CHILD"); dir != "" {
		crashChild(t, dir)
		return
	}
	ctx := context.Background()
	root := newWorkspace(t, true)
	storeDir := t.TempDir()
	s, err := Open(storeDir, Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	want := snapshot(t, root)
	for i := range 200 {
		write(t, root, fmt.Sprintf("gen/%03d.txt", i), "generated", 0o644)
	}
	write(t, root, "main.go", "edited", 0o644)
	changed := snapshot(t, root)

	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLDuringRestore$")
	cmd.Env = append(os.Environ(), "CHECKPOINT_CRASH_CHILD="+storeDir, "CHECKPOINT_CRASH_TARGET="+first.ID, "CHECKPOINT_CRASH_READY="+ready)
	must(t, cmd.Start())
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child never reached the middle of the restore")
		}
		time.Sleep(5 * time.Millisecond)
	}
	must(t, cmd.Process.Kill()) // SIGKILL
	cmd.Wait()

	s2, err := Open(storeDir, Options{})
	must(t, err)
	if tgt, ok := s2.Pending(); !ok || tgt != first.ID {
		t.Fatalf("no pending restore after the kill: %q %v", tgt, ok)
	}
	mid := snapshot(t, root)
	if len(mid) == len(want) || len(mid) == len(changed) {
		t.Fatalf("the child was not killed mid-restore: %d paths", len(mid))
	}
	res, err := s2.Restore(ctx, first.ID)
	must(t, err)
	diffSnap(t, "after re-run", snapshot(t, root), want)
	_, err = s2.Restore(ctx, res.Undo)
	must(t, err)
	diffSnap(t, "undo after re-run", snapshot(t, root), changed)
}

func crashChild(t *testing.T, dir string) {
	s, err := Open(dir, Options{})
	must(t, err)
	afterChange = func(n int) error {
		if n == 20 {
			os.WriteFile(os.Getenv("CHECKPOINT_CRASH_READY"), nil, 0o600)
			time.Sleep(time.Minute)
		}
		return nil
	}
	s.Restore(context.Background(), os.Getenv("CHECKPOINT_CRASH_TARGET"))
	t.Fatal("child: restore finished before it was killed")
}
