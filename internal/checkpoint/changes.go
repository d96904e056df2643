package checkpoint

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Change records. Beside each manifest it stores, a checkpoint writes
// manifests/<id>.changes: the checkpoint it was compared with (its
// parent, the stat cache's) and, one line per path whose content differs
// between the two (what Diff reports), the content before and after. A
// listing of how many files changed since each prompt then follows these
// records from the newest checkpoint back, reading a few lines per
// checkpoint, instead of loading whole manifests (hundreds of thousands of
// entries each in a large tree) and a scan of the tree.
//
// The records are a hint, never read by a restore: they are written
// without a sync, and a checkpoint whose record is missing or unreadable
// (a crash, a store written by an older ply) ends the walk; the caller
// then compares manifests.

const changesMagic = "ply-checkpoint-changes 1"

func (s *Store) changesPath(id string) string {
	return filepath.Join(s.dir, "manifests", id+".changes")
}

// contentKey identifies what restoring e would put in place, as Diff
// compares entries: kind, mode and hash or link target, and for a file
// over the size cap its stat.
func contentKey(e *Entry) string {
	switch e.Kind {
	case KindFile:
		return fmt.Sprintf("f %o %s", e.Mode, e.Hash)
	case KindLink:
		return "l " + strconv.Quote(e.Target)
	default:
		return fmt.Sprintf("s %o %d %d %d %d", e.Mode, e.Size, e.Mtime, e.Ctime, e.Ino)
	}
}

// sameForDiff reports whether Diff counts a and b, two entries of one
// path, as the same.
func sameForDiff(a, b *Entry) bool {
	if a.Kind == KindSkipped && b.Kind == KindSkipped {
		return a.sameStat(b)
	}
	return a.sameContent(b)
}

// saveChanges writes the change record of m against prev (nil when m was
// not compared with another checkpoint).
func (s *Store) saveChanges(prev, m *Manifest) error {
	var b bytes.Buffer
	b.WriteString(changesMagic + "\n")
	if prev == nil {
		b.WriteString("parent -\n")
		return writeAtomic(s.changesPath(m.ID), tempName(s.changesPath(m.ID)), b.Bytes(), 0o600)
	}
	fmt.Fprintf(&b, "parent %s\n", prev.ID)
	line := func(e *Entry, old, cur string) {
		fmt.Fprintf(&b, "%d %s %s %s\n", e.Root, strconv.Quote(e.Rel), strconv.Quote(old), strconv.Quote(cur))
	}
	a, c := prev.Entries, m.Entries
	i, j := 0, 0
	for i < len(a) || j < len(c) {
		switch k := compareAt(a, c, i, j); {
		case k < 0:
			line(&a[i], contentKey(&a[i]), "")
			i++
		case k > 0:
			line(&c[j], "", contentKey(&c[j]))
			j++
		default:
			if !sameForDiff(&a[i], &c[j]) {
				line(&c[j], contentKey(&a[i]), contentKey(&c[j]))
			}
			i++
			j++
		}
	}
	return writeAtomic(s.changesPath(m.ID), tempName(s.changesPath(m.ID)), b.Bytes(), 0o600)
}

// compareAt orders a[i] and c[j] for a merge, an exhausted side last.
func compareAt(a, c []Entry, i, j int) int {
	switch {
	case i == len(a):
		return 1
	case j == len(c):
		return -1
	}
	return entryKey(&a[i], &c[j])
}

// changeRecord is one line of a change record.
type changeRecord struct {
	key      string // root and path
	old, cur string // content keys; "" for absent
}

// loadChanges reads the change record of id: its parent ("" when none)
// and its lines.
func (s *Store) loadChanges(id string) (parent string, recs []changeRecord, err error) {
	data, err := os.ReadFile(s.changesPath(id))
	if err != nil {
		return "", nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	bad := fmt.Errorf("%w: change record of %s", errManifest, id)
	if !sc.Scan() || sc.Text() != changesMagic || !sc.Scan() || !strings.HasPrefix(sc.Text(), "parent ") {
		return "", nil, bad
	}
	if parent = strings.TrimPrefix(sc.Text(), "parent "); parent == "-" {
		parent = ""
	}
	for sc.Scan() {
		root, rest, ok := strings.Cut(sc.Text(), " ")
		var q [3]string
		for k := range q {
			if q[k], err = strconv.QuotedPrefix(rest); err != nil {
				return "", nil, bad
			}
			rest = strings.TrimPrefix(rest[len(q[k]):], " ")
		}
		if !ok || rest != "" {
			return "", nil, bad
		}
		rel, _ := strconv.Unquote(q[0])
		old, _ := strconv.Unquote(q[1])
		cur, _ := strconv.Unquote(q[2])
		recs = append(recs, changeRecord{key: root + " " + rel, old: old, cur: cur})
	}
	return parent, recs, sc.Err()
}

// Newest returns the id of the newest checkpoint this store's stat cache
// starts from (the last one recorded), or "" when there is none.
func (s *Store) Newest() string {
	if id := s.head(); validID(id) && s.holds(id) {
		return id
	}
	return ""
}

// IDTime returns the time a checkpoint id was made, which its first
// field holds.
func IDTime(id string) (time.Time, bool) {
	hexTime, _, ok := strings.Cut(id, "-")
	n, err := strconv.ParseInt(hexTime, 16, 64)
	if !ok || err != nil || !validID(id) {
		return time.Time{}, false
	}
	return time.Unix(0, n), true
}

// maxChangeWalk bounds how many change records ChangeCounts reads.
const maxChangeWalk = 10_000

// ChangeCounts returns, for each checkpoint of ids, how many paths differ
// between it and the checkpoint to (len(Diff(it, to))), read from the
// change records by following them back from to; -1 for a checkpoint
// they do not reach. It reads no manifest and takes no lock.
func (s *Store) ChangeCounts(ids []string, to string) []int {
	out := make([]int, len(ids))
	want := map[string][]int{}
	for i, id := range ids {
		out[i] = -1
		want[id] = append(want[id], i)
	}
	type span struct{ old, cur string }
	spans := map[string]*span{} // path → its content at the walk's point and at to
	differ := 0
	for cur, n := to, 0; cur != "" && len(want) > 0 && n < maxChangeWalk; n++ {
		for _, i := range want[cur] {
			out[i] = differ
		}
		delete(want, cur)
		parent, recs, err := s.loadChanges(cur)
		if err != nil {
			break
		}
		for _, r := range recs {
			sp := spans[r.key]
			if sp == nil {
				sp = &span{old: r.cur, cur: r.cur}
				spans[r.key] = sp
			}
			if sp.old != sp.cur {
				differ--
			}
			sp.old = r.old
			if sp.old != sp.cur {
				differ++
			}
		}
		cur = parent
	}
	return out
}
