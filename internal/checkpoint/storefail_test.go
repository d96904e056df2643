package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// A content the store cannot write fails the checkpoint with the write's
// own error. It is not a file of the workspace that could not be read,
// left out with the checkpoint reported taken, and the sync that follows
// does not replace the error with one about a file that is not there.
func TestStoreWriteFailureFailsTheCheckpoint(t *testing.T) {
	root := newWorkspace(t, false)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	defer s.Close()
	const body = "a file whose content the store cannot take\n"
	write(t, root, "f.txt", body, 0o644)
	sum := sha256.Sum256([]byte(body))
	// A directory where the content goes: the rename into place fails.
	must(t, os.MkdirAll(s.blobPath(hex.EncodeToString(sum[:]))+"/x", 0o700))
	r, err := s.Checkpoint(context.Background(), []string{root})
	if err == nil {
		t.Fatalf("the checkpoint was taken (problems %q); want the store's error", r.Problems)
	}
	if msg := err.Error(); !strings.Contains(msg, "checkpoint: write") || strings.Contains(msg, "no such file") {
		t.Fatalf("error %q; want the write's failure", msg)
	}
}
