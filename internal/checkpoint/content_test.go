package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestContent(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Checkpoint(context.Background(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := s.Load(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 1 {
		t.Fatalf("entries %+v", m.Entries)
	}
	got, err := s.Content(&m.Entries[0])
	if err != nil || string(got) != "first\n" {
		t.Fatalf("Content = %q, %v; want the content at the checkpoint", got, err)
	}
	if _, err := s.Content(&Entry{Kind: KindLink, Target: "x"}); err == nil {
		t.Fatal("a link has no content")
	}
	if _, err := s.Content(&Entry{Kind: KindFile}); err == nil {
		t.Fatal("an entry without a hash has no content")
	}
}
