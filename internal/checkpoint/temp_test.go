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

// deadPID returns the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	must(t, cmd.Run())
	return cmd.Process.Pid
}

// A checkpoint never records ply's temporary files, and removes those a
// killed writer left (its process is gone); a live writer's stay.
func TestCheckpointIgnoresAndSweepsTemporaryFiles(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	dead, live := deadPID(t), os.Getpid()
	stale := []string{
		fmt.Sprintf(".main.go.ply-tmp-%d-3k2j1", dead),
		fmt.Sprintf("lib/.a.go.ply-tmp-%d-12345", dead),
	}
	kept := []string{fmt.Sprintf(".main.go.ply-tmp-%d-zz9", live)}
	for _, rel := range append(stale, kept...) {
		write(t, root, rel, "half written", 0o600)
	}
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	res, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	m, err := s.Load(res.ID)
	must(t, err)
	for _, e := range m.Entries {
		if _, ok := isTemp(e.Rel); ok {
			t.Errorf("the checkpoint recorded the temporary file %s", e.Rel)
		}
	}
	for _, rel := range stale {
		if _, err := os.Lstat(filepath.Join(root, rel)); err == nil {
			t.Errorf("%s, left by a writer that is gone, was not removed", rel)
		}
	}
	for _, rel := range kept {
		if _, err := os.Lstat(filepath.Join(root, rel)); err != nil {
			t.Errorf("%s, a live writer's, was removed: %v", rel, err)
		}
	}
}

// Opening a store removes the temporary files a killed process left in
// it, when no other process holds the store.
func TestOpenSweepsTheStoresTemporaryFiles(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, false)
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	must(t, err)
	_, err = s.Checkpoint(ctx, []string{root})
	must(t, err)
	left := []string{"HEAD.tmp-0123456789ab", "manifests/0000000000000001-abcdef.tmp-0123456789ab",
		"objects/" + fmt.Sprint(time.Now().UnixNano()) + ".tmp-0123456789ab",
		"packs/" + newID(time.Now()) + packExt + ".tmp-0123456789ab"}
	for _, rel := range left {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o700))
		must(t, os.WriteFile(filepath.Join(dir, rel), []byte("torn"), 0o600))
	}
	_, err = Open(dir, Options{})
	must(t, err)
	for _, rel := range left {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil {
			t.Errorf("%s was not removed", rel)
		}
	}
}
