//go:build unix

package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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

// TestSIGKILLAfterSavingAhead kills a process whose first checkpoint is
// being scanned after it saved a file ahead of it and changed it: the
// file is restored from the new process, the others left as they are.
func TestSIGKILLAfterSavingAhead(t *testing.T) {
	if dir := os.Getenv("CHECKPOINT_AHEAD_CHILD"); dir != "" {
		aheadChild(t, dir)
		return
	}
	root := newWorkspace(t, true)
	before := snapshot(t, root)
	storeDir := t.TempDir()
	ready := filepath.Join(t.TempDir(), "ready")
	id := newID(time.Now())
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLAfterSavingAhead$")
	cmd.Env = append(os.Environ(), "CHECKPOINT_AHEAD_CHILD="+storeDir, "CHECKPOINT_AHEAD_ROOT="+root,
		"CHECKPOINT_AHEAD_ID="+id, "CHECKPOINT_AHEAD_READY="+ready)
	must(t, cmd.Start())
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child never wrote the file saved ahead")
		}
		time.Sleep(5 * time.Millisecond)
	}
	must(t, cmd.Process.Kill())
	cmd.Wait()
	if got := snapshot(t, root)["main.go"].data; got != "edited while the checkpoint was scanned" {
		t.Fatalf("the child did not write main.go: %q", got)
	}
	s, err := Open(storeDir, Options{})
	must(t, err)
	res, err := s.Restore(context.Background(), id)
	must(t, err)
	if !res.Partial {
		t.Errorf("not said to be partial: %+v", res)
	}
	diffSnap(t, "restored", snapshot(t, root), before)
}

func aheadChild(t *testing.T, dir string) {
	root, id := os.Getenv("CHECKPOINT_AHEAD_ROOT"), os.Getenv("CHECKPOINT_AHEAD_ID")
	s, err := Open(dir, Options{})
	must(t, err)
	scanning := make(chan struct{})
	var once sync.Once
	recordHook = func(string) {
		once.Do(func() { close(scanning) })
		time.Sleep(time.Minute)
	}
	go s.CheckpointAs(context.Background(), []string{root}, id)
	<-scanning
	must(t, s.SaveAhead(context.Background(), []string{root}, id, []string{filepath.Join(root, "main.go")}))
	write(t, root, "main.go", "edited while the checkpoint was scanned", 0o644)
	os.WriteFile(os.Getenv("CHECKPOINT_AHEAD_READY"), nil, 0o600)
	time.Sleep(time.Minute)
	t.Fatal("child: not killed")
}
