package gitstate

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
)

// oid is a SHA-1 object id.
type oid [20]byte

// Modes of index and tree entries.
const (
	modeTree    = 0o040000
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeLink    = 0o120000
	modeGitlink = 0o160000
)

// entry is one index entry at stage 0.
type entry struct {
	Path string
	Mode uint32
	ID   oid
	// The stat data git recorded.
	CtimeSec, CtimeNsec, MtimeSec, MtimeNsec uint32
	Dev, Ino, UID, GID, Size                 uint32
}

// index is a parsed index file.
type index struct {
	Entries []entry
	// Trees holds the cache tree's valid entries: the tree each
	// directory of the index hashes to, by path ("" for the top).
	Trees map[string]oid
}

// errIndex is an index git would refuse or one this package does not
// read.
var errIndex = errors.New("index")

func indexErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errIndex}, a...)...)
}

// parseIndex parses an index file of version 2, 3 or 4. Entries at a
// stage other than 0, flagged skip-worktree, intent-to-add or
// assume-unchanged, gitlinks, and required extensions it does not know
// are errors: git status would show what this package cannot.
func parseIndex(data []byte, max int) (*index, error) {
	if len(data) < 12+20 {
		return nil, indexErr("too short")
	}
	body, sum := data[:len(data)-20], data[len(data)-20:]
	if h := sha1.Sum(body); !bytes.Equal(h[:], sum) {
		return nil, indexErr("checksum mismatch")
	}
	if string(body[:4]) != "DIRC" {
		return nil, indexErr("bad signature")
	}
	version := binary.BigEndian.Uint32(body[4:])
	if version < 2 || version > 4 {
		return nil, indexErr("version %d", version)
	}
	n := binary.BigEndian.Uint32(body[8:])
	if n > uint32(max) {
		return nil, unsupported(fmt.Sprintf("the index has %d entries, more than %d", n, max))
	}
	idx := &index{Entries: make([]entry, 0, n)}
	p := 12
	prev := ""
	for i := uint32(0); i < n; i++ {
		const fixed = 62
		if len(body)-p < fixed {
			return nil, indexErr("entry %d truncated", i)
		}
		b := body[p:]
		u := func(k int) uint32 { return binary.BigEndian.Uint32(b[4*k:]) }
		e := entry{
			CtimeSec: u(0), CtimeNsec: u(1), MtimeSec: u(2), MtimeNsec: u(3),
			Dev: u(4), Ino: u(5), Mode: u(6), UID: u(7), GID: u(8), Size: u(9),
		}
		copy(e.ID[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		q := fixed
		if flags&0x4000 != 0 {
			if version < 3 || len(b) < q+2 {
				return nil, indexErr("entry %d: extended flags", i)
			}
			ext := binary.BigEndian.Uint16(b[q:])
			q += 2
			if ext != 0 {
				return nil, unsupported("index entries flagged skip-worktree or intent-to-add")
			}
		}
		if flags&0x8000 != 0 {
			return nil, unsupported("index entries flagged assume-unchanged")
		}
		if flags&0x3000 != 0 {
			return nil, unsupported("unmerged index entries")
		}
		var name string
		if version == 4 {
			// How much of the previous name to drop, in the offset
			// encoding of pack deltas.
			rd := bytes.NewReader(b[q:])
			strip, err := ofsDeltaOffset(rd)
			if err != nil || strip > int64(len(prev)) {
				return nil, indexErr("entry %d: bad prefix", i)
			}
			q += len(b[q:]) - rd.Len()
			end := bytes.IndexByte(b[q:], 0)
			if end < 0 {
				return nil, indexErr("entry %d: unterminated name", i)
			}
			name = prev[:len(prev)-int(strip)] + string(b[q:q+end])
			q += end + 1
		} else {
			end := bytes.IndexByte(b[q:], 0)
			if end < 0 {
				return nil, indexErr("entry %d: unterminated name", i)
			}
			name = string(b[q : q+end])
			// Padded with 1 to 8 NULs to a multiple of 8.
			q = (q + end + 8) &^ 7
			if q > len(b) {
				return nil, indexErr("entry %d truncated", i)
			}
		}
		if err := checkPath(name); err != nil {
			return nil, indexErr("entry %d: %v", i, err)
		}
		if name <= prev && i > 0 {
			return nil, indexErr("entries out of order at %q", name)
		}
		switch e.Mode {
		case modeFile, modeExec, modeLink:
		case modeGitlink:
			return nil, unsupported("submodules")
		default:
			return nil, indexErr("entry %q: mode %o", name, e.Mode)
		}
		e.Path, prev = name, name
		idx.Entries = append(idx.Entries, e)
		p += q
	}
	for len(body)-p >= 8 {
		sig := string(body[p : p+4])
		size := binary.BigEndian.Uint32(body[p+4:])
		p += 8
		if uint64(size) > uint64(len(body)-p) {
			return nil, indexErr("extension %q truncated", sig)
		}
		ext := body[p : p+int(size)]
		p += int(size)
		switch {
		case sig == "TREE":
			trees, err := parseCacheTree(ext)
			if err != nil {
				return nil, err
			}
			idx.Trees = trees
		case sig == "FSMN":
			return nil, unsupported("the index holds file system monitor data")
		case sig[0] >= 'A' && sig[0] <= 'Z':
			// Optional: resolve-undo, untracked cache, offsets.
		default:
			return nil, unsupported(fmt.Sprintf("the index extension %q", sig))
		}
	}
	if p != len(body) {
		return nil, indexErr("trailing bytes")
	}
	return idx, nil
}

// checkPath refuses names git would never write into an index.
func checkPath(name string) error {
	if name == "" || name[0] == '/' || name[len(name)-1] == '/' {
		return fmt.Errorf("bad path %q", name)
	}
	for _, c := range bytes.Split([]byte(name), []byte{'/'}) {
		if len(c) == 0 || string(c) == "." || string(c) == ".." || string(c) == ".git" {
			return fmt.Errorf("bad path %q", name)
		}
	}
	return nil
}

// parseCacheTree reads the TREE extension: for each directory, its path,
// entry count (-1 when invalidated), subtree count and, when valid, its
// tree id; subtrees follow their parent, depth first.
func parseCacheTree(b []byte) (map[string]oid, error) {
	trees := map[string]oid{}
	var walk func(prefix string, depth int) error
	walk = func(prefix string, depth int) error {
		if depth > 256 {
			return indexErr("cache tree too deep")
		}
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return indexErr("cache tree truncated")
		}
		name := string(b[:nul])
		b = b[nul+1:]
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return indexErr("cache tree truncated")
		}
		var count, subs int
		if _, err := fmt.Sscanf(string(b[:nl]), "%d %d", &count, &subs); err != nil || subs < 0 || count < -1 {
			return indexErr("cache tree counts")
		}
		b = b[nl+1:]
		path := name
		if prefix != "" {
			path = prefix + "/" + name
		}
		if count >= 0 {
			if len(b) < 20 {
				return indexErr("cache tree truncated")
			}
			var id oid
			copy(id[:], b[:20])
			b = b[20:]
			trees[path] = id
		}
		if subs > len(b) {
			return indexErr("cache tree counts")
		}
		for i := 0; i < subs; i++ {
			if err := walk(path, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if len(b) == 0 {
		return trees, nil
	}
	if err := walk("", 0); err != nil {
		return nil, err
	}
	return trees, nil
}
