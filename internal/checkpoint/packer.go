package checkpoint

import (
	"fmt"
	"path/filepath"
	"sync"
)

// packer gathers the new contents of one checkpoint into a pack. Each
// scan worker fills a block of its own (files of the same directories
// compress well together) and hands it over when full; the first full
// block starts the pack. At the end, when no block was full and fewer
// than packMinObjects contents wait, they are stored loose, as a
// checkpoint of a few edits always was: a pack pays for many contents,
// not for three.
type packer struct {
	s *Store

	mu      sync.Mutex
	claimed map[[32]byte]bool // contents taken, for a pack or loose
	w       *packWriter       // nil until a block is full
	left    []packObj         // what the workers had not handed over
}

func (s *Store) newPacker() *packer { return &packer{s: s, claimed: map[[32]byte]bool{}} }

// storeScanned stores data, the content hash a scan worker read: into a
// pack when sw has a packer and data is small, loose otherwise.
func (s *Store) storeScanned(sw *scanWorker, hash string, data []byte) error {
	h, ok := hashBytes(hash)
	if sw.pk == nil || len(data) > packMaxObject || !ok {
		wrote, err := s.putBlob(hash, data)
		if wrote {
			sw.newBlobs = append(sw.newBlobs, hash)
		}
		return err
	}
	if !sw.pk.claim(h) {
		return nil // another file of this checkpoint has it
	}
	if s.hasLoose(hash) {
		// putBlob decides whether what is there is whole.
		wrote, err := s.putBlob(hash, data)
		if wrote {
			sw.newBlobs = append(sw.newBlobs, hash)
		}
		return err
	}
	if s.packs.has(hash, int64(len(data))) {
		return nil
	}
	sw.pending = append(sw.pending, packObj{h, data})
	sw.pendingBytes += len(data)
	if sw.pendingBytes < packBlockBytes {
		return nil
	}
	objs := sw.pending
	sw.pending, sw.pendingBytes = nil, 0
	return sw.pk.addBlock(objs)
}

func (pk *packer) claim(h [32]byte) bool {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.claimed[h] {
		return false
	}
	pk.claimed[h] = true
	return true
}

// addBlock writes objs as one block of the pack, starting it.
func (pk *packer) addBlock(objs []packObj) error {
	pk.mu.Lock()
	if pk.w == nil {
		w, err := newPackWriter(filepath.Join(pk.s.dir, "packs"))
		if err != nil {
			pk.mu.Unlock()
			return &storeError{err}
		}
		pk.w = w
	}
	w := pk.w
	pk.mu.Unlock()
	if err := w.add(objs); err != nil {
		return &storeError{err}
	}
	return nil
}

// adopt takes what a worker had not handed over.
func (pk *packer) adopt(sw *scanWorker) {
	pk.mu.Lock()
	pk.left = append(pk.left, sw.pending...)
	pk.mu.Unlock()
	sw.pending, sw.pendingBytes = nil, 0
}

// finish stores what is left and makes the pack durable. It returns the
// contents it stored loose, which the caller syncs with its own.
func (pk *packer) finish() (loose []string, err error) {
	if pk.w == nil && len(pk.left) < packMinObjects {
		for _, o := range pk.left {
			hash := fmt.Sprintf("%x", o.hash)
			wrote, err := pk.s.putBlob(hash, o.data)
			if err != nil {
				return loose, err
			}
			if wrote {
				loose = append(loose, hash)
			}
		}
		pk.left = nil
		return loose, nil
	}
	for len(pk.left) > 0 {
		n, size := 0, 0
		for n < len(pk.left) && size < packBlockBytes {
			size += len(pk.left[n].data)
			n++
		}
		if err := pk.addBlock(pk.left[:n]); err != nil {
			pk.abort()
			return nil, err
		}
		pk.left = pk.left[n:]
	}
	p, err := pk.w.finish()
	if err != nil {
		return nil, &storeError{err}
	}
	pk.s.packs.add(p)
	return nil, nil
}

// abort drops the unfinished pack: no manifest names its contents.
func (pk *packer) abort() {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.w != nil {
		pk.w.abort()
	}
	pk.left = nil
}
