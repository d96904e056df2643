package gitstate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
)

const (
	// maxPacks and maxIdx cap the packs read and each pack index's size.
	maxPacks = 64
	maxIdx   = 256 << 20
	// maxDepth caps a delta chain.
	maxDepth = 1000
	// maxLooseDir caps the names read from one loose-object directory.
	maxLooseDir = 1 << 16
	// cacheBudget caps the delta bases kept while reading, all packs
	// together; inflateBudget caps all the bytes inflated from packs,
	// so that a pack of long chains of large deltas cannot hold up the
	// start.
	cacheBudget   = 16 << 20
	inflateBudget = 256 << 20
)

const (
	packOfsDelta = 6
	packRefDelta = 7
)

// pack is one packfile and its index. The index is read where a lookup
// needs it (the fan-out table, then a binary search), never whole: a
// large history's index costs a few reads, not its size.
type pack struct {
	ix     io.ReaderAt // the .idx
	ixSize int64
	fan    [256]uint32
	n      int
	f      io.ReaderAt // the .pack
	closer []io.Closer
	size   int64
	cache  map[int64]cached
}

type cached struct {
	t    int
	data []byte
}

// idxHeader is the size of a version 2 index's header and fan-out table.
const idxHeader = 8 + 256*4

// openPack opens base.idx and base.pack, both beneath com; nil without
// a pack.
func openPack(com *dir, base string) (*pack, error) {
	pf, err := com.open(base + ".pack")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s.pack: %w", base, err)
	}
	size, regular, err := pf.info()
	if err != nil || !regular {
		pf.Close()
		return nil, unsupported(base + ".pack is not a regular file")
	}
	xf, err := com.open(base + ".idx")
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("opening %s.idx: %w", base, err)
	}
	xsize, regular, err := xf.info()
	if err == nil && !regular {
		err = errors.New("not a regular file")
	}
	var p *pack
	if err == nil {
		p, err = parseIdx(xf, xsize)
	}
	if err != nil {
		pf.Close()
		xf.Close()
		return nil, unsupported(fmt.Sprintf("%s.idx: %v", filepath.Base(base), err))
	}
	p.f, p.size, p.closer = pf, size, []io.Closer{pf, xf}
	return p, nil
}

// parseIdx checks a pack index of version 2 of size bytes and reads its
// fan-out table.
func parseIdx(r io.ReaderAt, size int64) (*pack, error) {
	if size < idxHeader+40 || size > maxIdx {
		return nil, errors.New("not a pack index of a size this package reads")
	}
	var head [idxHeader]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if string(head[:4]) != "\xfftOc" || binary.BigEndian.Uint32(head[4:]) != 2 {
		return nil, errors.New("not a version 2 pack index")
	}
	p := &pack{ix: r, ixSize: size}
	prev := uint32(0)
	for i := range p.fan {
		v := binary.BigEndian.Uint32(head[8+4*i:])
		if v < prev {
			return nil, errors.New("fan-out table out of order")
		}
		p.fan[i], prev = v, v
	}
	n := int64(p.fan[255])
	if n > (size-idxHeader-40)/28 {
		return nil, errors.New("truncated")
	}
	if (size-idxHeader-40-28*n)%8 != 0 {
		return nil, errors.New("bad large offset table")
	}
	p.n = int(n)
	return p, nil
}

// name reads the i-th object id.
func (p *pack) name(i int) (oid, error) {
	var id oid
	_, err := p.ix.ReadAt(id[:], idxHeader+20*int64(i))
	return id, err
}

// search returns the position of id in the sorted names, or where it
// would go.
func (p *pack) search(id oid) (int, bool, error) {
	lo, hi := 0, int(p.fan[id[0]])
	if id[0] > 0 {
		lo = int(p.fan[id[0]-1])
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		name, err := p.name(m)
		if err != nil {
			return 0, false, err
		}
		switch c := bytes.Compare(name[:], id[:]); {
		case c == 0:
			return m, true, nil
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return lo, false, nil
}

// find returns id's offset in the pack.
func (p *pack) find(id oid) (int64, bool, error) {
	i, ok, err := p.search(id)
	if err != nil || !ok {
		return 0, false, err
	}
	off, err := p.offset(i)
	return off, err == nil, err
}

// offset reads the i-th object's offset, from the table of large ones
// when it is past 2 GiB.
func (p *pack) offset(i int) (int64, error) {
	var b [8]byte
	n := int64(p.n)
	if _, err := p.ix.ReadAt(b[:4], idxHeader+24*n+4*int64(i)); err != nil {
		return 0, err
	}
	v := binary.BigEndian.Uint32(b[:4])
	if v&0x80000000 == 0 {
		return int64(v), nil
	}
	j := int64(v &^ 0x80000000)
	at := idxHeader + 28*n + 8*j
	if at+8 > p.ixSize-40 {
		return 0, errors.New("large offset out of range")
	}
	if _, err := p.ix.ReadAt(b[:], at); err != nil {
		return 0, err
	}
	o := binary.BigEndian.Uint64(b[:])
	if o >= 1<<62 {
		return 0, errors.New("large offset out of range")
	}
	return int64(o), nil
}

// neighbours are the ids beside id in the pack, which share the longest
// prefixes with it.
func (p *pack) neighbours(id oid) ([]oid, error) {
	i, found, err := p.search(id)
	if err != nil {
		return nil, err
	}
	var out []oid
	next := i
	if found {
		next = i + 1
	}
	for _, j := range []int{i - 1, next} {
		if j >= 0 && j < p.n {
			o, err := p.name(j)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// readAt reads the object at off, applying deltas.
func (p *pack) readAt(s *store, off int64, depth int) (int, []byte, error) {
	if depth > maxDepth {
		return 0, nil, fmt.Errorf("%w: delta chain too long", errObject)
	}
	if c, ok := p.cache[off]; ok {
		return c.t, c.data, nil
	}
	if off < 12 || off >= p.size {
		return 0, nil, fmt.Errorf("%w: offset %d outside the pack", errObject, off)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(p.f, off, p.size-off), 4096)
	t, size, err := entryHeader(r)
	if err != nil {
		return 0, nil, fmt.Errorf("%w at %d: %v", errObject, off, err)
	}
	if size > maxObject {
		return 0, nil, fmt.Errorf("%w at %d: too large", errObject, off)
	}
	var baseT int
	var base []byte
	switch t {
	case typeCommit, typeTree, typeBlob, typeTag:
	case packOfsDelta:
		rel, err := ofsDeltaOffset(r)
		if err != nil || rel <= 0 || rel > off {
			return 0, nil, fmt.Errorf("%w at %d: bad delta offset", errObject, off)
		}
		baseT, base, err = p.readAt(s, off-rel, depth+1)
		if err != nil {
			return 0, nil, err
		}
	case packRefDelta:
		var id oid
		if _, err := io.ReadFull(r, id[:]); err != nil {
			return 0, nil, fmt.Errorf("%w at %d: %v", errObject, off, err)
		}
		boff, ok, err := p.find(id)
		if err != nil || !ok {
			return 0, nil, fmt.Errorf("%w at %d: delta base not in its pack", errObject, off)
		}
		baseT, base, err = p.readAt(s, boff, depth+1)
		if err != nil {
			return 0, nil, err
		}
	default:
		return 0, nil, fmt.Errorf("%w at %d: type %d", errObject, off, t)
	}
	if s.inflated += size; s.inflated > inflateBudget {
		return 0, nil, unsupported("objects too large to read")
	}
	data, err := inflateReader(r, int(size))
	if err != nil {
		return 0, nil, fmt.Errorf("%w at %d: %v", errObject, off, err)
	}
	if base != nil {
		if data, err = applyDelta(base, data, maxObject); err != nil {
			return 0, nil, fmt.Errorf("%w at %d: %v", errObject, off, err)
		}
		t = baseT
	}
	if t != typeBlob && s.held+len(data) <= cacheBudget {
		if p.cache == nil {
			p.cache = map[int64]cached{}
		}
		p.cache[off] = cached{t, data}
		s.held += len(data)
	}
	return t, data, nil
}

// entryHeader reads a pack entry's type and inflated size.
func entryHeader(r io.ByteReader) (int, int64, error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	t := int(c>>4) & 7
	size := int64(c & 15)
	shift := 4
	for c&0x80 != 0 {
		if c, err = r.ReadByte(); err != nil {
			return 0, 0, err
		}
		if shift > 56 {
			return 0, 0, errors.New("size overflows")
		}
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	return t, size, nil
}

// ofsDeltaOffset reads an OFS_DELTA's distance back to its base.
func ofsDeltaOffset(r io.ByteReader) (int64, error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, err
	}
	off := int64(c & 0x7f)
	for c&0x80 != 0 {
		if c, err = r.ReadByte(); err != nil {
			return 0, err
		}
		if off >= 1<<55 {
			return 0, errors.New("offset overflows")
		}
		off = (off+1)<<7 | int64(c&0x7f)
	}
	return off, nil
}

// inflateReader inflates exactly size bytes.
func inflateReader(r io.Reader, size int) ([]byte, error) {
	z, err := newInflater(r)
	if err != nil {
		return nil, err
	}
	defer releaseInflater(z)
	// The header's size is not trusted for the allocation: the buffer
	// grows with what the stream really holds.
	out, err := readAllCapped(z, min(size, 64<<10), size+1)
	if err != nil {
		return nil, err
	}
	if len(out) != size {
		return nil, fmt.Errorf("%d bytes where the header says %d", len(out), size)
	}
	return out, nil
}

// applyDelta builds an object from base and a git delta.
func applyDelta(base, delta []byte, max int) ([]byte, error) {
	srcSize, n := binary.Uvarint(delta)
	if n <= 0 || srcSize != uint64(len(base)) {
		return nil, errors.New("delta: base size mismatch")
	}
	delta = delta[n:]
	dstSize, n := binary.Uvarint(delta)
	if n <= 0 || dstSize > uint64(max) {
		return nil, errors.New("delta: bad result size")
	}
	delta = delta[n:]
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0:
			var off, size uint64
			for i := 0; i < 7; i++ {
				if cmd&(1<<i) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, errors.New("delta: truncated copy")
				}
				if i < 4 {
					off |= uint64(delta[0]) << (8 * i)
				} else {
					size |= uint64(delta[0]) << (8 * (i - 4))
				}
				delta = delta[1:]
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || uint64(len(out))+size > dstSize {
				return nil, errors.New("delta: copy out of range")
			}
			out = append(out, base[off:off+size]...)
		case cmd != 0:
			if int(cmd) > len(delta) || uint64(len(out))+uint64(cmd) > dstSize {
				return nil, errors.New("delta: insert out of range")
			}
			out = append(out, delta[:cmd]...)
			delta = delta[cmd:]
		default:
			return nil, errors.New("delta: reserved opcode")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errors.New("delta: result size mismatch")
	}
	return out, nil
}

func (s *store) close() {
	for _, p := range s.packs {
		for _, c := range p.closer {
			c.Close()
		}
	}
}

// readAllCapped reads r to its end or to limit bytes, starting with a
// buffer of capacity hint (a file's size: one read and no copy when it
// holds what its size said).
func readAllCapped(r io.Reader, hint, limit int) ([]byte, error) {
	buf := make([]byte, 0, max(min(hint, limit), 1))
	for {
		if len(buf) >= limit {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
