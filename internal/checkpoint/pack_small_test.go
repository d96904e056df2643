package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// A pack of a few tiny contents (a Prune that keeps one empty file) has
// frames too small for the encoder to say their size: it reads back.
func TestTinyPackReadsBack(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("x"), make([]byte, 100)} {
		dir := t.TempDir()
		w, err := newPackWriter(dir)
		must(t, err)
		must(t, w.add([]packObj{{hash: [32]byte(sha256sum(data)), data: data}}))
		p, err := w.finish()
		must(t, err)
		f, err := os.Open(filepath.Join(dir, p.name))
		must(t, err)
		defer f.Close()
		fi, err := f.Stat()
		must(t, err)
		q, err := readPackIndex(f, fi.Size(), p.name)
		must(t, err)
		blk, err := q.readBlock(f, 0)
		must(t, err)
		e := q.entryAt(0)
		if got := blk[e.off : e.off+e.size]; string(got) != string(data) {
			t.Fatalf("read back %q, want %q", got, data)
		}
	}
}
