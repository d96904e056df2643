// Package gitindex reads the entries and extensions of a git index file,
// versions 2 to 4, as bytes in memory. It checks only the file's layout:
// which entries and extensions a reader accepts, the trailing checksum,
// and what the paths may be are its callers' decisions (the checkpoint
// store reads any index leniently for its tracked paths, the repository
// snapshot refuses what git status would show differently). It opens no
// file and runs no git.
package gitindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrFormat is an index whose layout does not parse.
var ErrFormat = errors.New("git index")

func formatErr(f string, a ...any) error {
	return fmt.Errorf("%w: "+f, append([]any{ErrFormat}, a...)...)
}

// Flags of an entry.
const (
	FlagAssumeValid = 0x8000
	FlagExtended    = 0x4000
	FlagStage       = 0x3000
)

// Entry is one index entry. ID aliases the parsed data.
type Entry struct {
	Path string
	Mode uint32
	ID   []byte
	// The stat data git recorded.
	CtimeSec, CtimeNsec, MtimeSec, MtimeNsec uint32
	Dev, Ino, UID, GID, Size                 uint32
	Flags                                    uint16
	ExtFlags                                 uint16 // version 3 and up, when Flags has FlagExtended
}

// Extension is one extension after the entries; Data aliases the parsed
// data.
type Extension struct {
	Sig  string
	Data []byte
}

// Index is a parsed index.
type Index struct {
	Version    uint32
	Entries    []Entry
	Extensions []Extension
}

// Parse reads data, a whole index file whose trailing checksum is
// hashLen bytes (20 for SHA-1 repositories, 32 for SHA-256), as are the
// entries' object ids. An index of more than maxEntries entries is an
// error. The checksum itself is not verified.
func Parse(data []byte, hashLen, maxEntries int) (*Index, error) {
	if hashLen <= 0 || len(data) < 12+hashLen {
		return nil, formatErr("too short")
	}
	body := data[:len(data)-hashLen]
	if string(body[:4]) != "DIRC" {
		return nil, formatErr("bad signature")
	}
	version := binary.BigEndian.Uint32(body[4:])
	if version < 2 || version > 4 {
		return nil, formatErr("version %d", version)
	}
	fixed := 40 + hashLen + 2 // stat data and mode, the id, the flags
	n := binary.BigEndian.Uint32(body[8:])
	if uint64(n) > uint64(maxEntries) {
		return nil, formatErr("%d entries, more than %d", n, maxEntries)
	}
	if uint64(n) > uint64(len(body)-12)/uint64(fixed+1) {
		return nil, formatErr("%d entries cannot fit", n)
	}
	idx := &Index{Version: version, Entries: make([]Entry, 0, n)}
	p, prev := 12, ""
	for i := uint32(0); i < n; i++ {
		b := body[p:]
		if len(b) < fixed {
			return nil, formatErr("entry %d truncated", i)
		}
		u := func(k int) uint32 { return binary.BigEndian.Uint32(b[4*k:]) }
		e := Entry{
			CtimeSec: u(0), CtimeNsec: u(1), MtimeSec: u(2), MtimeNsec: u(3),
			Dev: u(4), Ino: u(5), Mode: u(6), UID: u(7), GID: u(8), Size: u(9),
			ID:    b[40 : 40+hashLen : 40+hashLen],
			Flags: binary.BigEndian.Uint16(b[fixed-2:]),
		}
		q := fixed
		if e.Flags&FlagExtended != 0 {
			if version < 3 || len(b) < q+2 {
				return nil, formatErr("entry %d: extended flags", i)
			}
			e.ExtFlags = binary.BigEndian.Uint16(b[q:])
			q += 2
		}
		if version == 4 {
			// How much of the previous path to drop, then the rest.
			strip, used := Varint(b[q:])
			if used == 0 || strip > uint64(len(prev)) {
				return nil, formatErr("entry %d: bad path prefix", i)
			}
			q += used
			end := bytes.IndexByte(b[q:], 0)
			if end < 0 {
				return nil, formatErr("entry %d: unterminated path", i)
			}
			e.Path = prev[:len(prev)-int(strip)] + string(b[q:q+end])
			q += end + 1
		} else {
			end := bytes.IndexByte(b[q:], 0)
			if end < 0 {
				return nil, formatErr("entry %d: unterminated path", i)
			}
			e.Path = string(b[q : q+end])
			// Padded with 1 to 8 NULs to a multiple of 8.
			q = (q + end + 8) &^ 7
			if q > len(b) {
				return nil, formatErr("entry %d truncated", i)
			}
		}
		if e.Path == "" {
			return nil, formatErr("entry %d: empty path", i)
		}
		idx.Entries = append(idx.Entries, e)
		prev = e.Path
		p += q
	}
	for len(body)-p >= 8 {
		sig := string(body[p : p+4])
		size := binary.BigEndian.Uint32(body[p+4:])
		p += 8
		if uint64(size) > uint64(len(body)-p) {
			return nil, formatErr("extension %q truncated", sig)
		}
		idx.Extensions = append(idx.Extensions, Extension{Sig: sig, Data: body[p : p+int(size) : p+int(size)]})
		p += int(size)
	}
	if p != len(body) {
		return nil, formatErr("trailing bytes")
	}
	return idx, nil
}

// Varint decodes the offset encoding of index version 4's path prefixes
// (the one pack deltas use for their base's offset); used is 0 when b
// holds no complete number or one that overflows.
func Varint(b []byte) (v uint64, used int) {
	for i := 0; i < len(b) && i < 9; i++ {
		c := b[i]
		if i > 0 {
			v++
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
