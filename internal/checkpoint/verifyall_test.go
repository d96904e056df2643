package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestVerify(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(t.TempDir(), "store"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Checkpoint(context.Background(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(res.ID); err != nil {
		t.Fatalf("Verify of a sound checkpoint = %v", err)
	}
	if err := s.Verify("no-such-id"); err == nil {
		t.Fatal("Verify of a missing checkpoint succeeded")
	}
	m, err := s.Load(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	blob := s.blobPath(m.Entries[0].Hash)
	if err := os.Chmod(blob, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, []byte("HELLO\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var oe *ObjectError
	if err := s.Verify(res.ID); !errors.As(err, &oe) || !errors.Is(err, ErrObjectCorrupt) {
		t.Fatalf("Verify of a damaged content = %v, want an ObjectError saying corrupt", err)
	}
	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(res.ID); !errors.Is(err, ErrObjectMissing) {
		t.Fatalf("Verify of a missing content = %v", err)
	}
}
