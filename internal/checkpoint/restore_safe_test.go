package checkpoint

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
)

// A restore checks every content it needs, its size and its hash, before
// it changes the first path: a damaged or missing one is refused, naming
// the file and the content, and the workspace is left as it was.
func TestRestoreRefusesDamagedContent(t *testing.T) {
	flip := func(at func(n int) int) func(t *testing.T, blob string) {
		return func(t *testing.T, blob string) {
			b, err := os.ReadFile(blob)
			must(t, err)
			b[at(len(b))] ^= 0x10
			must(t, os.WriteFile(blob, b, 0o600))
		}
	}
	for _, content := range []struct{ name, data string }{
		{"stored as it is", "package main\n"},
		{"compressed", "package main\n" + strings.Repeat("// a line that compresses well\n", 200)},
	} {
		for _, tc := range []struct {
			name   string
			damage func(t *testing.T, blob string)
			want   error
		}{
			{"flipped bit", flip(func(int) int { return 3 }), ErrObjectCorrupt},
			{"flipped bit in the middle", flip(func(n int) int { return n / 2 }), ErrObjectCorrupt},
			{"flipped bit at the end", flip(func(n int) int { return n - 1 }), ErrObjectCorrupt},
			{"truncated", func(t *testing.T, blob string) { must(t, os.Truncate(blob, 4)) }, ErrObjectCorrupt},
			{"truncated by half", func(t *testing.T, blob string) {
				fi, err := os.Stat(blob)
				must(t, err)
				must(t, os.Truncate(blob, fi.Size()/2))
			}, ErrObjectCorrupt},
			{"missing", func(t *testing.T, blob string) { must(t, os.Remove(blob)) }, ErrObjectMissing},
		} {
			t.Run(content.name+"/"+tc.name, func(t *testing.T) {
				ctx := context.Background()
				root := newWorkspace(t, true)
				write(t, root, "main.go", content.data, 0o644)
				s, err := Open(t.TempDir(), Options{})
				must(t, err)
				first, err := s.Checkpoint(ctx, []string{root})
				must(t, err)
				write(t, root, "main.go", "package main // edited\n", 0o644)
				write(t, root, "made.txt", "made", 0o644)
				must(t, os.Remove(root+"/lib/a.go"))
				before := snapshot(t, root)

				sum := sha256.Sum256([]byte(content.data))
				hash := hex.EncodeToString(sum[:])
				if fi, err := os.Stat(s.blobPath(hash)); err != nil || (fi.Size() < int64(len(content.data))) != (content.name == "compressed") {
					t.Fatalf("the object is not %s: %v", content.name, err)
				}
				tc.damage(t, s.blobPath(hash))

				_, err = s.Restore(ctx, first.ID)
				var oe *ObjectError
				if !errors.As(err, &oe) || !errors.Is(err, tc.want) {
					t.Fatalf("Restore = %v, want an ObjectError of %v", err, tc.want)
				}
				if !strings.HasSuffix(oe.Path, "main.go") || oe.Hash != hash ||
					!strings.Contains(err.Error(), "main.go") || !strings.Contains(err.Error(), hash[:12]) {
					t.Errorf("the error does not name the file and the content: %v (%+v)", err, oe)
				}
				diffSnap(t, "after the refused restore", snapshot(t, root), before)
				if tgt, ok := s.Pending(); ok {
					t.Errorf("a refused restore left a journal (target %s)", tgt)
				}
			})
		}
	}
}

// A store written before contents were compressed holds them as they
// are, and a content may itself be a zstd frame stored as it is (it does
// not shrink): both restore.
func TestRestoreReadsContentsStoredAsTheyAre(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	text := "package main\n" + strings.Repeat("// a line that compresses well\n", 200)
	write(t, root, "main.go", text, 0o644)
	// A content that is a zstd frame, of random bytes: it does not
	// shrink, and decodes to something else.
	e, _ := codecs()
	noise := make([]byte, 4096)
	rand.Read(noise)
	frame := e.EncodeAll(noise, nil)
	write(t, root, "data.zst", string(frame), 0o644)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	want := snapshot(t, root)
	sum := sha256.Sum256([]byte(text))
	// As an older ply stored it: the content itself.
	must(t, os.WriteFile(s.blobPath(hex.EncodeToString(sum[:])), []byte(text), 0o600))
	sum = sha256.Sum256(frame)
	if b, err := os.ReadFile(s.blobPath(hex.EncodeToString(sum[:]))); err != nil || string(b) != string(frame) {
		t.Fatalf("the zstd frame was not stored as it is: %v", err)
	}
	write(t, root, "main.go", "edited", 0o644)
	write(t, root, "data.zst", "edited", 0o644)
	_, err = s.Restore(ctx, first.ID)
	must(t, err)
	diffSnap(t, "restored", snapshot(t, root), want)
}

// Work done on the tree an interrupted restore left is what the next
// restore's undo brings back, whatever that restore's target.
func TestWorkAfterAnInterruptedRestoreCanBeUndone(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t, true)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	for i := range 10 {
		write(t, root, "gen/"+string(rune('a'+i))+".txt", "gen", 0o644)
	}
	second, err := s.Checkpoint(ctx, []string{root})
	must(t, err)
	boom := errors.New("crash")
	afterChange = func(n int) error {
		if n == 3 {
			return boom
		}
		return nil
	}
	_, err = s.Restore(ctx, first.ID)
	afterChange = nil
	if !errors.Is(err, boom) {
		t.Fatalf("restore error %v, want the injected crash", err)
	}
	write(t, root, "work.txt", "later work", 0o644)
	withWork := snapshot(t, root)
	res, err := s.Restore(ctx, second.ID)
	must(t, err)
	if _, err := os.Stat(root + "/work.txt"); err == nil {
		t.Fatal("work.txt survived the restore")
	}
	_, err = s.Restore(ctx, res.Undo)
	must(t, err)
	diffSnap(t, "undo", snapshot(t, root), withWork)
}

// A restore obeys its context until its first change, and from there
// runs to its end: a cancelled one never leaves a half-restored tree.
func TestCancelledRestoreIsAllOrNothing(t *testing.T) {
	root := newWorkspace(t, true)
	s, err := Open(t.TempDir(), Options{})
	must(t, err)
	first, err := s.Checkpoint(context.Background(), []string{root})
	must(t, err)
	want := snapshot(t, root)
	for i := range 10 {
		write(t, root, "gen/"+string(rune('a'+i))+".txt", "gen", 0o644)
	}
	changed := snapshot(t, root)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Restore(ctx, first.ID); !errors.Is(err, context.Canceled) {
		t.Fatalf("a restore cancelled before it began: %v", err)
	}
	diffSnap(t, "after a restore cancelled before it began", snapshot(t, root), changed)

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	afterChange = func(n int) error {
		if n == 3 {
			cancel()
		}
		return nil
	}
	defer func() { afterChange = nil }()
	_, err = s.Restore(ctx, first.ID)
	must(t, err)
	diffSnap(t, "after a restore cancelled half-way", snapshot(t, root), want)
	if _, ok := s.Pending(); ok {
		t.Error("a journal was left")
	}
}
