package checkpoint

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// packSet is the packs of a store as this process knows them: their
// indexes, loaded when a content is first looked up in them, and the
// blocks read last.
//
// Packs are only ever added (renamed into place whole) or removed, by
// Prune, under the store's lock. A lookup that decides whether a content
// must be stored relies on the set being current: it is listed again
// the first time it is asked under each hold of the lock (stale). A read
// without the lock (Verify, Content) that misses, or finds its pack
// removed, lists the directory again and tries once more.
type packSet struct {
	dir string

	mu      sync.Mutex
	listed  bool                  // the listing is current
	packs   []*packIndex          // newest first
	damaged map[string]error      // packs whose index cannot be read, by name
	loaded  map[string]*packIndex // every index read, by name; packs never change
	cache   [8]cachedBlock        // the blocks read last (dropCache empties it)
	clock   int
}

type cachedBlock struct {
	pack  *packIndex
	block uint32
	data  []byte
	used  int
}

// stale makes the next lookup list the packs again: the caller has just
// taken the store's lock, and another process may have pruned packs.
func (ps *packSet) stale() {
	ps.mu.Lock()
	ps.listed = false
	ps.mu.Unlock()
}

// refreshLocked lists the packs directory and reads the indexes not
// read yet.
func (ps *packSet) refreshLocked() {
	ents, err := os.ReadDir(ps.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return // keep what is known; a read will say what is wrong
	}
	if ps.loaded == nil {
		ps.loaded, ps.damaged = map[string]*packIndex{}, map[string]error{}
	}
	var packs []*packIndex
	damaged := map[string]error{}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, packExt) || !e.Type().IsRegular() {
			continue
		}
		if p := ps.loaded[name]; p != nil {
			packs = append(packs, p)
			continue
		}
		p, err := loadPackIndex(filepath.Join(ps.dir, name), name)
		if err != nil {
			damaged[name] = err
			continue
		}
		ps.loaded[name] = p
		packs = append(packs, p)
	}
	slices.SortFunc(packs, func(a, b *packIndex) int { return strings.Compare(b.name, a.name) })
	for name := range ps.loaded {
		if !slices.ContainsFunc(packs, func(p *packIndex) bool { return p.name == name }) {
			delete(ps.loaded, name)
		}
	}
	ps.packs, ps.damaged, ps.listed = packs, damaged, true
}

func loadPackIndex(path, name string) (*packIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readPackIndex(f, fi.Size(), name)
}

// add makes p, just written by this process, known.
func (ps *packSet) add(p *packIndex) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.loaded == nil {
		ps.loaded, ps.damaged = map[string]*packIndex{}, map[string]error{}
	}
	ps.loaded[p.name] = p
	ps.packs = append([]*packIndex{p}, ps.packs...)
	slices.SortFunc(ps.packs, func(a, b *packIndex) int { return strings.Compare(b.name, a.name) })
}

// has reports whether a pack holds the content hash of size bytes.
func (ps *packSet) has(hash string, size int64) bool {
	h, ok := hashBytes(hash)
	if !ok {
		return false
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.listed {
		ps.refreshLocked()
	}
	for _, p := range ps.packs {
		if e, ok := p.find(h[:]); ok && int64(e.size) == size {
			return true
		}
	}
	return false
}

// errNotPacked says that no pack holds a content.
var errNotPacked = errors.New("not in a pack")

// read returns the content hash of size bytes from a pack, checked:
// errNotPacked when no pack holds it, an error wrapping errDecode or
// errPack when the pack or the content is damaged.
func (ps *packSet) read(hash string, size int64) ([]byte, error) {
	h, ok := hashBytes(hash)
	if !ok {
		return nil, errNotPacked
	}
	for attempt := 0; ; attempt++ {
		data, err := ps.readOnce(h, hash, size, attempt > 0)
		if attempt == 0 && (errors.Is(err, errNotPacked) || errors.Is(err, fs.ErrNotExist)) {
			continue // listed again: another process may have written or pruned packs
		}
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w: its pack was removed while it was read", errNotPacked)
		}
		return data, err
	}
}

func (ps *packSet) readOnce(h [32]byte, hash string, size int64, relist bool) ([]byte, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if relist || !ps.listed || ps.loaded == nil {
		ps.refreshLocked()
	}
	for _, p := range ps.packs {
		e, ok := p.find(h[:])
		if !ok {
			continue
		}
		blk, err := ps.blockLocked(p, e.block)
		if err != nil {
			return nil, err
		}
		data := blk[e.off : e.off+e.size]
		if int64(len(data)) != size {
			return nil, fmt.Errorf("%w: %d bytes in pack %s, the checkpoint recorded %d", errDecode, len(data), p.name, size)
		}
		if !hashIs(data, hash) {
			return nil, fmt.Errorf("%w: its SHA-256 in pack %s is %x", errDecode, p.name, sha256sum(data)[:6])
		}
		return slices.Clone(data), nil
	}
	if len(ps.damaged) > 0 {
		var errs []error
		for _, err := range ps.damaged {
			errs = append(errs, err)
		}
		return nil, fmt.Errorf("%w: not in a readable pack, and a pack is damaged: %w", errDecode, errors.Join(errs...))
	}
	return nil, errNotPacked
}

// blockLocked returns block b of p, from the cache or read.
func (ps *packSet) blockLocked(p *packIndex, b uint32) ([]byte, error) {
	ps.clock++
	oldest := 0
	for i := range ps.cache {
		c := &ps.cache[i]
		if c.pack == p && c.block == b && c.data != nil {
			c.used = ps.clock
			return c.data, nil
		}
		if c.used < ps.cache[oldest].used {
			oldest = i
		}
	}
	f, err := os.Open(filepath.Join(ps.dir, p.name))
	if err != nil {
		return nil, err
	}
	data, err := p.readBlock(f, b)
	f.Close()
	if err != nil {
		return nil, err
	}
	ps.cache[oldest] = cachedBlock{pack: p, block: b, data: data, used: ps.clock}
	return data, nil
}

// all returns the packs as listed now, newest first, and those that
// cannot be read.
func (ps *packSet) all() ([]*packIndex, map[string]error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.refreshLocked()
	return slices.Clone(ps.packs), ps.damaged
}

// forget drops the packs removed from the directory, and the blocks
// cached from them.
func (ps *packSet) forget(names []string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, n := range names {
		delete(ps.loaded, n)
	}
	ps.packs = slices.DeleteFunc(ps.packs, func(p *packIndex) bool { return slices.Contains(names, p.name) })
	for i := range ps.cache {
		if c := ps.cache[i].pack; c != nil && slices.Contains(names, c.name) {
			ps.cache[i] = cachedBlock{}
		}
	}
}

// readFrom returns entry i of p, checked against hash.
func (ps *packSet) readFrom(p *packIndex, i int, hash string) ([]byte, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e := p.entryAt(i)
	blk, err := ps.blockLocked(p, e.block)
	if err != nil {
		return nil, err
	}
	data := blk[e.off : e.off+e.size]
	if !hashIs(data, hash) {
		return nil, errDecode
	}
	return slices.Clone(data), nil
}

// packLoc is where a content is stored, as far as this process knows:
// loose (pack empty) or in a block of a pack.
type packLoc struct {
	pack       string
	block, off uint32
}

func (a packLoc) compare(b packLoc) int {
	return cmp.Or(strings.Compare(a.pack, b.pack), cmp.Compare(a.block, b.block), cmp.Compare(a.off, b.off))
}

// locate returns where the content hash is: an order to read contents
// in, not a promise.
func (ps *packSet) locate(hash string) packLoc {
	h, ok := hashBytes(hash)
	if !ok {
		return packLoc{}
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.listed {
		ps.refreshLocked()
	}
	for _, p := range ps.packs {
		if e, ok := p.find(h[:]); ok {
			return packLoc{p.name, e.block, e.off}
		}
	}
	return packLoc{}
}

// dropCache empties the cache of blocks: a restore, a Verify or a Prune
// that read many does not leave them in memory.
func (ps *packSet) dropCache() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.cache = [len(ps.cache)]cachedBlock{}
}
