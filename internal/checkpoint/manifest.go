package checkpoint

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Kind is what a manifest entry records.
type Kind byte

const (
	KindFile    Kind = 'f' // a regular file; Hash names its content
	KindLink    Kind = 'l' // a symbolic link; Target is where it points
	KindSkipped Kind = 's' // a regular file over the size cap: not saved
)

// Entry is one path of a checkpoint.
type Entry struct {
	Root   int    // index into Manifest.Roots
	Rel    string // slash-separated, relative to the root
	Kind   Kind
	Mode   fs.FileMode // permission bits, setuid, setgid, sticky
	Size   int64
	Mtime  int64 // nanoseconds since the epoch
	Ctime  int64 // nanoseconds since the epoch; 0 where unknown
	Ino    uint64
	Hash   string // hex SHA-256 of the content, files only
	Target string // links only

	// racy is set in a stat cache when the entry's times were too close to
	// the scan that read it for its stat to prove its content.
	racy bool
	// readBytes is what the scan read of the file: 0 when its stat
	// proved it unchanged.
	readBytes int64
	// nlink is the file's number of names when scanned (0 where unknown).
	nlink uint64
}

// sameStat reports whether e and o describe the same file by stat alone.
func (e *Entry) sameStat(o *Entry) bool {
	return e.Kind == o.Kind && e.Mode == o.Mode && e.Size == o.Size && e.Mtime == o.Mtime &&
		e.Ctime == o.Ctime && e.Ino == o.Ino
}

// sameContent reports whether restoring e over o would change nothing.
func (e *Entry) sameContent(o *Entry) bool {
	return e.Kind == o.Kind && e.Hash == o.Hash && e.Target == o.Target &&
		(e.Kind == KindLink || e.Mode == o.Mode)
}

// Manifest is one checkpoint.
type Manifest struct {
	ID      string
	Created time.Time // when the scan started
	Roots   []string  // absolute workspace roots
	Entries []Entry   // sorted by (Root, Rel)

	// A manifest as stored may be a delta: Entries are then the paths
	// added or changed since Parent, and Deleted (Root and Rel only) those
	// removed. Depth counts the deltas down to a full manifest (0). Load
	// resolves deltas: callers only see full manifests.
	Parent  string
	Depth   int
	Deleted []Entry
}

const manifestMagic = "ply-checkpoint 1"

// encode writes m in the manifest's text format: a header, then one line
// per entry with the path quoted last.
func (m *Manifest) encode() []byte {
	var b bytes.Buffer
	b.Grow(64 + len(m.Entries)*120)
	fmt.Fprintf(&b, "%s\ncreated %d\n", manifestMagic, m.Created.UnixNano())
	if m.Parent != "" {
		fmt.Fprintf(&b, "parent %s %d\n", m.Parent, m.Depth)
	}
	for _, r := range m.Roots {
		b.WriteString("root ")
		b.WriteString(strconv.Quote(r))
		b.WriteByte('\n')
	}
	var num []byte
	for i := range m.Entries {
		e := &m.Entries[i]
		b.WriteByte(byte(e.Kind))
		for _, v := range []int64{int64(e.Root), int64(e.Mode), e.Size, e.Mtime, e.Ctime, int64(e.Ino)} {
			b.WriteByte(' ')
			num = strconv.AppendInt(num[:0], v, 10)
			b.Write(num)
		}
		b.WriteByte(' ')
		switch e.Kind {
		case KindFile:
			b.WriteString(e.Hash)
		case KindLink:
			b.WriteString(strconv.Quote(e.Target))
		default:
			b.WriteByte('-')
		}
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Rel))
		b.WriteByte('\n')
	}
	for _, e := range m.Deleted {
		fmt.Fprintf(&b, "d %d %s\n", e.Root, strconv.Quote(e.Rel))
	}
	return b.Bytes()
}

var errManifest = errors.New("malformed checkpoint manifest")

// parseManifest reads what encode wrote.
func parseManifest(id string, data []byte) (*Manifest, error) {
	m := &Manifest{ID: id}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	bad := func(why string) error { return fmt.Errorf("%w: line %d: %s", errManifest, line, why) }
	for sc.Scan() {
		line++
		s := sc.Text()
		switch {
		case line == 1:
			if s != manifestMagic {
				return nil, bad("not a checkpoint manifest")
			}
		case strings.HasPrefix(s, "created "):
			n, err := strconv.ParseInt(s[len("created "):], 10, 64)
			if err != nil {
				return nil, bad("bad time")
			}
			m.Created = time.Unix(0, n)
		case strings.HasPrefix(s, "parent "):
			var depth int
			if _, err := fmt.Sscanf(s, "parent %s %d", &m.Parent, &depth); err != nil || !validID(m.Parent) || depth < 1 || depth > maxDepth {
				return nil, bad("bad parent")
			}
			m.Depth = depth
		case strings.HasPrefix(s, "d "):
			var e Entry
			sp := strings.IndexByte(s[2:], ' ')
			if sp < 0 {
				return nil, bad("bad deletion")
			}
			root, err := strconv.Atoi(s[2 : 2+sp])
			rel, qerr := strconv.Unquote(s[3+sp:])
			if err != nil || qerr != nil || !validRel(rel) || root < 0 || root >= len(m.Roots) {
				return nil, bad("bad deletion")
			}
			e.Root, e.Rel = root, rel
			m.Deleted = append(m.Deleted, e)
		case strings.HasPrefix(s, "root "):
			r, err := strconv.Unquote(s[len("root "):])
			if err != nil {
				return nil, bad("bad root")
			}
			m.Roots = append(m.Roots, r)
		default:
			e, err := parseEntry(s)
			if err != nil {
				return nil, bad(err.Error())
			}
			if e.Root < 0 || e.Root >= len(m.Roots) {
				return nil, bad("entry names no root")
			}
			m.Entries = append(m.Entries, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read checkpoint manifest: %w", err)
	}
	if line == 0 {
		return nil, bad("empty")
	}
	return m, nil
}

func parseEntry(s string) (Entry, error) {
	var e Entry
	if len(s) < 2 || s[1] != ' ' {
		return e, errors.New("bad entry")
	}
	e.Kind = Kind(s[0])
	if e.Kind != KindFile && e.Kind != KindLink && e.Kind != KindSkipped {
		return e, errors.New("unknown entry kind")
	}
	s = s[2:]
	var nums [6]int64
	for i := range nums {
		sp := strings.IndexByte(s, ' ')
		if sp < 0 {
			return e, errors.New("short entry")
		}
		n, err := strconv.ParseInt(s[:sp], 10, 64)
		if err != nil {
			return e, errors.New("bad number")
		}
		nums[i], s = n, s[sp+1:]
	}
	e.Root, e.Mode, e.Size, e.Mtime, e.Ctime, e.Ino = int(nums[0]), fs.FileMode(nums[1])&modeMask, nums[2], nums[3], nums[4], uint64(nums[5])
	var err error
	switch e.Kind {
	case KindFile:
		if len(s) < 65 || s[64] != ' ' || !isHex(s[:64]) {
			return e, errors.New("bad hash")
		}
		e.Hash, s = s[:64], s[65:]
	case KindLink:
		q, err := strconv.QuotedPrefix(s)
		if err != nil || len(s) == len(q) || s[len(q)] != ' ' {
			return e, errors.New("bad link target")
		}
		e.Target, _ = strconv.Unquote(q)
		s = s[len(q)+1:]
	default:
		if !strings.HasPrefix(s, "- ") {
			return e, errors.New("bad skipped entry")
		}
		s = s[2:]
	}
	if e.Rel, err = strconv.Unquote(s); err != nil || !validRel(e.Rel) {
		return e, errors.New("bad path")
	}
	return e, nil
}

// validRel reports whether rel is a clean relative slash path that stays
// under its root, so that a crafted manifest cannot write elsewhere.
func validRel(rel string) bool {
	if rel == "" || rel[0] == '/' || strings.ContainsRune(rel, 0) {
		return false
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." || c == ".git" {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// maxDepth bounds a chain of delta manifests: the next checkpoint after
// that many deltas is stored whole.
const maxDepth = 32

const modeMask = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
