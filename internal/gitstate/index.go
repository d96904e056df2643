package gitstate

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/plyhq/ply/internal/gitindex"
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

// parseIndex parses an index file of version 2, 3 or 4 whose checksum
// holds. Entries at a stage other than 0, flagged skip-worktree,
// intent-to-add or assume-unchanged, gitlinks, and required extensions
// it does not know are errors: git status would show what this package
// cannot.
func parseIndex(data []byte, max int) (*index, error) {
	if len(data) < 12+20 {
		return nil, indexErr("too short")
	}
	body, sum := data[:len(data)-20], data[len(data)-20:]
	if h := sha1.Sum(body); !bytes.Equal(h[:], sum) {
		return nil, indexErr("checksum mismatch")
	}
	if n := binary.BigEndian.Uint32(body[8:]); n > uint32(max) {
		return nil, unsupported(fmt.Sprintf("the index has %d entries, more than %d", n, max))
	}
	raw, err := gitindex.Parse(data, 20, max)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errIndex, err)
	}
	idx := &index{Entries: make([]entry, 0, len(raw.Entries))}
	prev := ""
	for i, r := range raw.Entries {
		e, err := strictEntry(r)
		if err != nil {
			return nil, err
		}
		if err := checkPath(e.Path); err != nil {
			return nil, indexErr("entry %d: %v", i, err)
		}
		if e.Path <= prev && i > 0 {
			return nil, indexErr("entries out of order at %q", e.Path)
		}
		prev = e.Path
		idx.Entries = append(idx.Entries, e)
	}
	for _, x := range raw.Extensions {
		switch {
		case x.Sig == "TREE":
			trees, err := parseCacheTree(x.Data)
			if err != nil {
				return nil, err
			}
			idx.Trees = trees
		case x.Sig == "FSMN":
			return nil, unsupported("the index holds file system monitor data")
		case x.Sig[0] >= 'A' && x.Sig[0] <= 'Z':
			// Optional: resolve-undo, untracked cache, offsets.
		default:
			return nil, unsupported(fmt.Sprintf("the index extension %q", x.Sig))
		}
	}
	return idx, nil
}

// strictEntry is r as this package reads it, or the reason it does not.
func strictEntry(r gitindex.Entry) (entry, error) {
	e := entry{
		Path: r.Path, Mode: r.Mode,
		CtimeSec: r.CtimeSec, CtimeNsec: r.CtimeNsec, MtimeSec: r.MtimeSec, MtimeNsec: r.MtimeNsec,
		Dev: r.Dev, Ino: r.Ino, UID: r.UID, GID: r.GID, Size: r.Size,
	}
	copy(e.ID[:], r.ID)
	switch {
	case r.ExtFlags != 0:
		return e, unsupported("index entries flagged skip-worktree or intent-to-add")
	case r.Flags&gitindex.FlagAssumeValid != 0:
		return e, unsupported("index entries flagged assume-unchanged")
	case r.Flags&gitindex.FlagStage != 0:
		return e, unsupported("unmerged index entries")
	}
	switch e.Mode {
	case modeFile, modeExec, modeLink:
	case modeGitlink:
		return e, unsupported("submodules")
	default:
		return e, indexErr("entry %q: mode %o", e.Path, e.Mode)
	}
	return e, nil
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
