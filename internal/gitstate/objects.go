package gitstate

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Object types, as numbered in packs.
const (
	typeCommit = 1
	typeTree   = 2
	typeBlob   = 3
	typeTag    = 4
)

// maxObject caps the size of a commit or tree this package inflates.
const maxObject = 8 << 20

// errObject is an object that is missing, corrupt or too large.
var errObject = errors.New("object")

// store reads objects from a repository's objects directory: loose
// objects and packs (index version 2).
type store struct {
	com   *dir // the common git directory, which holds objects/
	packs []*pack
	// count is the objects in packs, from which git sizes its
	// abbreviations.
	count uint64
	// held and inflated count against cacheBudget and inflateBudget.
	held     int
	inflated int64
}

func openStore(com *dir) (*store, error) {
	s := &store{com: com}
	objects := filepath.Join(com.path, "objects")
	for _, f := range []string{"info/alternates", "info/http-alternates", "pack/multi-pack-index"} {
		if _, err := os.Lstat(filepath.Join(objects, f)); err == nil {
			return nil, unsupported("objects/" + f)
		}
	}
	names, err := os.ReadDir(filepath.Join(objects, "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading packs: %w", err)
	}
	for _, n := range names {
		base, ok := strings.CutSuffix(n.Name(), ".idx")
		if !ok {
			continue
		}
		if len(s.packs) >= maxPacks {
			return nil, unsupported("more than " + strconv.Itoa(maxPacks) + " packs")
		}
		p, err := openPack(com, "objects/pack/"+base)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue // an index without its pack: git skips it too
		}
		s.packs = append(s.packs, p)
		s.count += uint64(p.n)
	}
	return s, nil
}

// read returns an object's type and content.
func (s *store) read(id oid) (int, []byte, error) {
	for _, p := range s.packs {
		off, ok, err := p.find(id)
		if err != nil {
			return 0, nil, fmt.Errorf("%w: pack index: %v", errObject, err)
		}
		if ok {
			return p.readAt(s, off, 0)
		}
	}
	h := hex.EncodeToString(id[:])
	z, err := s.com.read("objects/"+h[:2]+"/"+h[2:], maxObject+64)
	if err != nil {
		return 0, nil, fmt.Errorf("%w %s: %v", errObject, h, err)
	}
	t, data, err := inflateLoose(z)
	if err != nil {
		return 0, nil, fmt.Errorf("%w %s: %v", errObject, h, err)
	}
	return t, data, nil
}

// inflateLoose decodes a loose object: zlib of "type size\0content".
func inflateLoose(z []byte) (int, []byte, error) {
	data, err := inflate(z, maxObject+32)
	if err != nil {
		return 0, nil, err
	}
	nul := bytes.IndexByte(data, 0)
	if nul < 0 || nul > 32 {
		return 0, nil, errors.New("bad header")
	}
	name, size, ok := strings.Cut(string(data[:nul]), " ")
	if !ok {
		return 0, nil, errors.New("bad header")
	}
	t := map[string]int{"commit": typeCommit, "tree": typeTree, "blob": typeBlob, "tag": typeTag}[name]
	n, err := strconv.Atoi(size)
	if t == 0 || err != nil || n != len(data)-nul-1 {
		return 0, nil, errors.New("bad header")
	}
	return t, data[nul+1:], nil
}

// inflaters holds zlib readers between objects: each carries a 32 KB
// window and its tables, which a snapshot reading a few commits and
// trees would otherwise allocate once an object.
var inflaters sync.Pool

// newInflater is a zlib reader of src, from the pool when one is there.
// Give it back with releaseInflater.
func newInflater(src io.Reader) (io.ReadCloser, error) {
	if r, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := r.(zlib.Resetter).Reset(src, nil); err != nil {
			inflaters.Put(r)
			return nil, err
		}
		return r, nil
	}
	return zlib.NewReader(src)
}

func releaseInflater(r io.ReadCloser) {
	r.Close()
	inflaters.Put(r)
}

// inflate decompresses a zlib stream of at most max bytes.
func inflate(z []byte, max int) ([]byte, error) {
	r, err := newInflater(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	defer releaseInflater(r)
	out, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(out) > max {
		return nil, errors.New("too large")
	}
	return out, nil
}

// abbrevLen is the length git abbreviates id to: at least 7 hex digits,
// more as the packs hold more objects (one digit per factor of 256 past
// 2^14), and one more than the longest prefix id shares with another
// object.
func (s *store) abbrevLen(id oid) (int, error) {
	n := 7
	if s.count > 0 {
		bits := 0
		for c := s.count; c > 1; c >>= 1 {
			bits++
		}
		if l := (bits + 2) / 2; l > n {
			n = l
		}
	}
	for _, p := range s.packs {
		near, err := p.neighbours(id)
		if err != nil {
			return 0, err
		}
		for _, other := range near {
			n = max(n, commonHex(id, other)+1)
		}
	}
	h := hex.EncodeToString(id[:])
	names, err := os.ReadDir(filepath.Join(s.com.path, "objects", h[:2]))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if len(names) > maxLooseDir {
		return 0, unsupported("too many loose objects")
	}
	for _, e := range names {
		b, err := hex.DecodeString(h[:2] + e.Name())
		if err != nil || len(b) != 20 {
			continue
		}
		var other oid
		copy(other[:], b)
		if other != id {
			n = max(n, commonHex(id, other)+1)
		}
	}
	return min(n, 40), nil
}

// commonHex is the number of leading hex digits a and b share.
func commonHex(a, b oid) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i]>>4 == b[i]>>4 {
				return 2*i + 1
			}
			return 2 * i
		}
	}
	return 40
}

func sha1Sum(b []byte) oid { return sha1.Sum(b) }
