package checkpoint

import (
	"cmp"
	"path/filepath"
	"slices"
)

// Op is how a path differs between two checkpoints.
type Op byte

const (
	Added    Op = '+'
	Removed  Op = '-'
	Modified Op = 'M' // content, mode, link target or kind
)

// Change is one path that differs.
type Change struct {
	Op   Op
	Path string // absolute
	Rel  string // relative to its root
}

// Diff returns the paths that differ from a to b, sorted by path.
func Diff(a, b *Manifest) []Change {
	key := func(m *Manifest, e *Entry) string { return filepath.Join(m.Roots[e.Root], filepath.FromSlash(e.Rel)) }
	old := make(map[string]*Entry, len(a.Entries))
	for i := range a.Entries {
		old[key(a, &a.Entries[i])] = &a.Entries[i]
	}
	var out []Change
	for i := range b.Entries {
		e := &b.Entries[i]
		k := key(b, e)
		o := old[k]
		delete(old, k)
		switch {
		case o == nil:
			out = append(out, Change{Added, k, e.Rel})
		case e.Kind == KindSkipped && o.Kind == KindSkipped:
			if !e.sameStat(o) {
				out = append(out, Change{Modified, k, e.Rel})
			}
		case !e.sameContent(o):
			out = append(out, Change{Modified, k, e.Rel})
		}
	}
	for k, o := range old {
		out = append(out, Change{Removed, k, o.Rel})
	}
	slices.SortFunc(out, func(x, y Change) int { return cmp.Compare(x.Path, y.Path) })
	return out
}

// entryKey orders entries as manifests do: by root, then path.
func entryKey(a, b *Entry) int { return cmp.Or(cmp.Compare(a.Root, b.Root), cmp.Compare(a.Rel, b.Rel)) }

// delta returns m stored as the changes from prev (both whole and sorted).
func delta(prev, m *Manifest) *Manifest {
	d := &Manifest{ID: m.ID, Created: m.Created, Roots: m.Roots, Parent: prev.ID, Depth: prev.Depth + 1}
	i, j := 0, 0
	for i < len(prev.Entries) || j < len(m.Entries) {
		c := 0
		switch {
		case i == len(prev.Entries):
			c = 1
		case j == len(m.Entries):
			c = -1
		default:
			c = entryKey(&prev.Entries[i], &m.Entries[j])
		}
		switch {
		case c < 0:
			d.Deleted = append(d.Deleted, Entry{Root: prev.Entries[i].Root, Rel: prev.Entries[i].Rel})
			i++
		case c > 0:
			d.Entries = append(d.Entries, m.Entries[j])
			j++
		default:
			a, b := &prev.Entries[i], &m.Entries[j]
			if !a.sameStat(b) || !a.sameContent(b) || a.Kind != b.Kind {
				d.Entries = append(d.Entries, *b)
			}
			i++
			j++
		}
	}
	return d
}

// applyDelta returns base with the delta d applied, whole: a merge of
// sorted lists, as base's entries are sorted and the delta's are put so.
func applyDelta(base, d *Manifest) *Manifest {
	out := &Manifest{ID: d.ID, Created: d.Created, Roots: d.Roots, Depth: d.Depth}
	changed, deleted := sortEntries(d.Entries), sortEntries(d.Deleted)
	kept := make([]Entry, 0, len(base.Entries))
	i, j := 0, 0
	for k := range base.Entries {
		e := &base.Entries[k]
		for i < len(changed) && entryKey(&changed[i], e) < 0 {
			i++
		}
		for j < len(deleted) && entryKey(&deleted[j], e) < 0 {
			j++
		}
		if i < len(changed) && entryKey(&changed[i], e) == 0 || j < len(deleted) && entryKey(&deleted[j], e) == 0 {
			continue
		}
		kept = append(kept, *e)
	}
	out.Entries = mergeSorted(kept, slices.CompactFunc(changed, func(a, b Entry) bool { return entryKey(&a, &b) == 0 }))
	return out
}
