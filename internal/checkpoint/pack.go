package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Packs. Small contents compressed one by one stay large: a file of a
// few kilobytes shares nothing with its neighbours, and on disk it takes
// a whole block. A checkpoint that stores many new contents (the first
// one of a store, mostly) writes them into a pack instead:
//
//	packs/<id>.pack
//	  "plypack1"
//	  blocks       zstd frames, each of contents laid end to end, about
//	               packBlockBytes before compression
//	  index        a zstd frame: the number of contents and of blocks;
//	               the contents' SHA-256 hashes, sorted; their blocks,
//	               their offsets in the block and their sizes, a column
//	               each (4 bytes a value); then the blocks (offset in the
//	               file, length, length once decompressed)
//	  footer       index offset, length and length once decompressed,
//	               the SHA-256 of the index,
//	               "plypackI"
//
// Reading one content decompresses its block only. A pack is written
// under a temporary name, synced and renamed, so that a pack that exists
// is whole; it is never changed after (Prune writes a new one and
// removes the old). The index and the footer are checked when a pack is
// opened and every content read from it is checked (size and hash) like
// a loose object: a damaged pack is refused, never trusted.

const (
	packMagic        = "plypack1"
	packFooterMagic  = "plypackI"
	packFooterLen    = 8 + 4 + 4 + 32 + 8
	packEntryLen     = 32 + 4 + 4 + 4
	packBlockLen     = 8 + 4 + 4
	packExt          = ".pack"
	packBlockBytes   = 2 << 20 // contents per block, before compression
	packMaxObject    = packBlockBytes / 2
	maxPackBlock     = 16 << 20  // the largest block a reader decompresses
	maxPackIndexSize = 256 << 20 // the largest index a reader decompresses
)

// packMinObjects is the fewest new contents a checkpoint packs: fewer
// are stored loose. A variable for tests.
var packMinObjects = 32

// errPack says that a pack is not what the format says.
var errPack = errors.New("damaged pack")

var (
	packEncOnce sync.Once
	packEnc     *zstd.Encoder
)

// packEncoder compresses blocks at a better level than loose objects:
// blocks are written by cold checkpoints, in the background, where the
// size of the store matters more than their CPU.
func packEncoder() *zstd.Encoder {
	packEncOnce.Do(func() {
		packEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression),
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithWindowSize(maxPackBlock))
	})
	return packEnc
}

// blockEncoder is the encoder of n bytes of a pack. The better level's
// tables (4 MiB an encoder, written whole) pay for themselves on full
// blocks, which the cold checkpoint of a large tree writes; a short block
// (a small tree, a few new files) and the index are compressed at the
// fastest level, as loose contents are, so that a session in a small
// workspace does not hold those tables.
func blockEncoder(n int) *zstd.Encoder {
	if n >= packBlockBytes/2 {
		return packEncoder()
	}
	enc, _ := codecs()
	return enc
}

// packObj is a content on its way into a pack.
type packObj struct {
	hash [32]byte
	data []byte
}

// packEntry locates a content in a pack.
type packEntry struct{ block, off, size uint32 }

// packBlock is one block of a pack.
type packBlock struct {
	off        uint64
	clen, rlen uint32
}

// packIndex is the index of a pack, checked.
type packIndex struct {
	name   string // the file's name in packs/
	hashes []byte // sorted, 32 bytes each
	cols   []byte // blocks, offsets, sizes: a column of 4-byte values each
	blocks []packBlock
	raw    uint64 // the bytes of its contents, decompressed
}

func (p *packIndex) len() int { return len(p.hashes) / 32 }

func (p *packIndex) hashAt(i int) []byte { return p.hashes[i*32 : i*32+32] }

func (p *packIndex) entryAt(i int) packEntry {
	n := p.len()
	col := func(c int) uint32 { return binary.LittleEndian.Uint32(p.cols[(c*n+i)*4:]) }
	return packEntry{col(0), col(1), col(2)}
}

// find returns where the content hash is in the pack.
func (p *packIndex) find(hash []byte) (packEntry, bool) {
	lo, hi := 0, p.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(p.hashAt(m), hash) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < p.len() && bytes.Equal(p.hashAt(lo), hash) {
		return p.entryAt(lo), true
	}
	return packEntry{}, false
}

// readPackIndex reads and checks the index of the pack r of size bytes.
func readPackIndex(r io.ReaderAt, size int64, name string) (*packIndex, error) {
	bad := func(why string, a ...any) error {
		return fmt.Errorf("%w %s: %s", errPack, name, fmt.Sprintf(why, a...))
	}
	if size < int64(len(packMagic)+packFooterLen) {
		return nil, bad("%d bytes, too short", size)
	}
	var head [len(packMagic)]byte
	var foot [packFooterLen]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, bad("read: %v", err)
	}
	if _, err := r.ReadAt(foot[:], size-packFooterLen); err != nil {
		return nil, bad("read: %v", err)
	}
	if string(head[:]) != packMagic || string(foot[packFooterLen-8:]) != packFooterMagic {
		return nil, bad("not a pack, or cut short")
	}
	ioff, ilen, iraw := binary.LittleEndian.Uint64(foot[:]), binary.LittleEndian.Uint32(foot[8:]), binary.LittleEndian.Uint32(foot[12:])
	end := uint64(size - packFooterLen)
	if ioff < uint64(len(packMagic)) || ioff > end || end-ioff != uint64(ilen) {
		return nil, bad("its index lies outside it")
	}
	z := make([]byte, ilen)
	if _, err := r.ReadAt(z, int64(ioff)); err != nil {
		return nil, bad("read its index: %v", err)
	}
	if sum := sha256.Sum256(z); !bytes.Equal(sum[:], foot[16:48]) {
		return nil, bad("its index does not match its checksum")
	}
	if iraw > maxPackIndexSize {
		return nil, bad("its index is too large")
	}
	idx, err := decodeFrame(z, uint64(iraw))
	if err != nil {
		return nil, bad("its index: %v", err)
	}
	p, err := parsePackIndex(name, idx, ioff)
	if err != nil {
		return nil, bad("%v", err)
	}
	return p, nil
}

// parsePackIndex reads the index idx, decompressed, of a pack whose
// blocks end at limit.
func parsePackIndex(name string, idx []byte, limit uint64) (*packIndex, error) {
	bad := func(why string, a ...any) error { return fmt.Errorf(why, a...) }
	if len(idx) < 8 {
		return nil, bad("its index is short")
	}
	n, nb := uint64(binary.LittleEndian.Uint32(idx)), uint64(binary.LittleEndian.Uint32(idx[4:]))
	if uint64(len(idx)) != 8+n*packEntryLen+nb*packBlockLen {
		return nil, bad("its index is %d bytes for %d contents in %d blocks", len(idx), n, nb)
	}
	p := &packIndex{name: name, hashes: idx[8 : 8+n*32], cols: idx[8+n*32 : 8+n*packEntryLen]}
	bs := idx[8+n*packEntryLen:]
	p.blocks = make([]packBlock, nb)
	for i := range p.blocks {
		b := bs[i*packBlockLen:]
		blk := packBlock{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:])}
		if blk.off < uint64(len(packMagic)) || blk.off > limit || limit-blk.off < uint64(blk.clen) || blk.rlen > maxPackBlock {
			return nil, bad("block %d lies outside it", i)
		}
		p.blocks[i] = blk
	}
	for i := range p.len() {
		e := p.entryAt(i)
		if uint64(e.block) >= nb || uint64(e.off)+uint64(e.size) > uint64(p.blocks[e.block].rlen) {
			return nil, bad("content %d lies outside its block", i)
		}
		if i > 0 && bytes.Compare(p.hashAt(i-1), p.hashAt(i)) >= 0 {
			return nil, bad("its index is not sorted")
		}
		p.raw += uint64(e.size)
	}
	return p, nil
}

// decodeFrame decompresses the zstd frame z, which must come to want
// bytes. A frame that says its size is decompressed at once; one that
// does not (the encoder leaves it out of some small frames) through a
// reader that stops past want bytes, so that a damaged frame cannot
// claim more memory.
func decodeFrame(z []byte, want uint64) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(z); err != nil {
		return nil, errors.New("not a compressed frame")
	}
	var out []byte
	var err error
	switch {
	case h.HasFCS && h.FrameContentSize != want:
		return nil, fmt.Errorf("a frame of %d bytes, %d expected", h.FrameContentSize, want)
	case h.HasFCS:
		_, d := codecs()
		out, err = d.DecodeAll(z, make([]byte, 0, want))
	default:
		var r *zstd.Decoder
		r, err = zstd.NewReader(bytes.NewReader(z), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxPackBlock))
		if err == nil {
			out, err = io.ReadAll(io.LimitReader(r, int64(want)+1))
			r.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	if uint64(len(out)) != want {
		return nil, fmt.Errorf("%d bytes once decompressed, %d expected", len(out), want)
	}
	return out, nil
}

// readBlock returns block b of the pack r, decompressed.
func (p *packIndex) readBlock(r io.ReaderAt, b uint32) ([]byte, error) {
	blk := p.blocks[b]
	z := make([]byte, blk.clen)
	if _, err := r.ReadAt(z, int64(blk.off)); err != nil {
		return nil, fmt.Errorf("%w %s: read block %d: %v", errPack, p.name, b, err)
	}
	data, err := decodeFrame(z, uint64(blk.rlen))
	if err != nil {
		return nil, fmt.Errorf("%w %s: block %d: %v", errPack, p.name, b, err)
	}
	return data, nil
}

// packWriter writes one pack; blocks may be added from several
// goroutines.
type packWriter struct {
	dir string // the store's packs/

	mu      sync.Mutex
	f       *os.File
	tmp     string
	off     uint64
	blocks  []packBlock
	entries []byte // unsorted, packEntryLen each
	err     error
}

func newPackWriter(dir string) (*packWriter, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: write a pack: %w", err)
	}
	tmp := tempName(filepath.Join(dir, newID(time.Now())+packExt))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: write a pack: %w", err)
	}
	if _, err := f.Write([]byte(packMagic)); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("checkpoint: write a pack: %w", err)
	}
	return &packWriter{dir: dir, f: f, tmp: tmp, off: uint64(len(packMagic))}, nil
}

// packBlockHook, when set by a test, runs before each block is written;
// an error stops the pack there, as a crash or a full disk would.
var packBlockHook func(n int) error

// add compresses objs into one block and appends it.
func (w *packWriter) add(objs []packObj) error {
	var raw []byte
	for _, o := range objs {
		raw = append(raw, o.data...)
	}
	z := blockEncoder(len(raw)).EncodeAll(raw, make([]byte, 0, len(raw)/3))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if packBlockHook != nil {
		if w.err = packBlockHook(len(w.blocks)); w.err != nil {
			return w.err
		}
	}
	if _, err := w.f.Write(z); err != nil {
		w.err = fmt.Errorf("checkpoint: write a pack: %w", err)
		return w.err
	}
	b := uint32(len(w.blocks))
	var e [packEntryLen]byte
	off := uint32(0)
	for _, o := range objs {
		copy(e[:], o.hash[:])
		binary.LittleEndian.PutUint32(e[32:], b)
		binary.LittleEndian.PutUint32(e[36:], off)
		binary.LittleEndian.PutUint32(e[40:], uint32(len(o.data)))
		w.entries = append(w.entries, e[:]...)
		off += uint32(len(o.data))
	}
	w.blocks = append(w.blocks, packBlock{w.off, uint32(len(z)), uint32(len(raw))})
	w.off += uint64(len(z))
	return nil
}

// finish writes the index and the footer, syncs the pack, renames it
// into place and syncs the directory: once it returns, the pack is
// durable and its contents may be named by a manifest.
func (w *packWriter) finish() (*packIndex, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		w.abortLocked()
		return nil, w.err
	}
	n := len(w.entries) / packEntryLen
	rows := make([][]byte, n)
	for i := range rows {
		rows[i] = w.entries[i*packEntryLen : (i+1)*packEntryLen]
	}
	slices.SortFunc(rows, func(a, b []byte) int { return bytes.Compare(a[:32], b[:32]) })
	idx := make([]byte, 8, 8+len(w.entries)+len(w.blocks)*packBlockLen)
	binary.LittleEndian.PutUint32(idx, uint32(n))
	binary.LittleEndian.PutUint32(idx[4:], uint32(len(w.blocks)))
	for _, r := range rows {
		idx = append(idx, r[:32]...)
	}
	for c := range 3 {
		for _, r := range rows {
			idx = append(idx, r[32+4*c:36+4*c]...)
		}
	}
	for _, b := range w.blocks {
		idx = binary.LittleEndian.AppendUint64(idx, b.off)
		idx = binary.LittleEndian.AppendUint32(idx, b.clen)
		idx = binary.LittleEndian.AppendUint32(idx, b.rlen)
	}
	z := blockEncoder(0).EncodeAll(idx, nil)
	sum := sha256.Sum256(z)
	foot := binary.LittleEndian.AppendUint64(nil, w.off)
	foot = binary.LittleEndian.AppendUint32(foot, uint32(len(z)))
	foot = binary.LittleEndian.AppendUint32(foot, uint32(len(idx)))
	foot = append(append(foot, sum[:]...), packFooterMagic...)
	_, err := w.f.Write(append(z, foot...))
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	name := filepath.Base(w.tmp[:len(w.tmp)-len(".tmp-")-12])
	if err == nil {
		err = os.Rename(w.tmp, filepath.Join(w.dir, name))
	}
	if err != nil {
		os.Remove(w.tmp)
		w.err = fmt.Errorf("checkpoint: write a pack: %w", err)
		return nil, w.err
	}
	syncDir(w.dir)
	if syncHook != nil {
		syncHook("pack " + name)
	}
	p, err := parsePackIndex(name, idx, w.off)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: write a pack: %w", err) // not reached: it wrote that index
	}
	w.err = errors.New("checkpoint: pack already finished")
	return p, nil
}

// abort removes the unfinished pack.
func (w *packWriter) abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.abortLocked()
}

func (w *packWriter) abortLocked() {
	if w.f != nil {
		w.f.Close()
		os.Remove(w.tmp)
		w.f = nil
	}
	if w.err == nil {
		w.err = errors.New("checkpoint: pack abandoned")
	}
}

// hashBytes returns the hex SHA-256 hash as bytes; ok is false when it
// is not one.
func hashBytes(hash string) (b [32]byte, ok bool) {
	if len(hash) != 64 {
		return b, false
	}
	_, err := hex.Decode(b[:], []byte(hash))
	return b, err == nil
}
