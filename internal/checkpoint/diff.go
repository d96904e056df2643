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
