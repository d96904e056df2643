package checkpoint

import (
	"cmp"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
)

// Pruning packs. A pack none of whose contents a kept checkpoint names
// is removed. One whose named contents are less than half of it is
// rewritten: those contents are copied, checked, into a new pack, synced
// before the old one is removed, so that a crash in between leaves both,
// never neither. A content found in several packs (such a crash, or two
// processes that stored it at once) counts in the newest only, so that
// the next Prune removes or rewrites the others.

// prunePacks removes or rewrites the packs that hold few of the contents
// keep names. It runs under the store's lock.
func (s *Store) prunePacks(keep map[string]bool) error {
	packs, _ := s.packs.all()
	claimed := map[string]bool{}
	type plan struct {
		p    *packIndex
		live []int // entries to copy
	}
	var drop []string
	var rewrite []plan
	for _, p := range packs {
		var live []int
		var liveBytes uint64
		for i := range p.len() {
			h := hex.EncodeToString(p.hashAt(i))
			if keep[h] && !claimed[h] {
				claimed[h] = true
				live = append(live, i)
				liveBytes += uint64(p.entryAt(i).size)
			}
		}
		switch {
		case len(live) == 0:
			drop = append(drop, p.name)
		case liveBytes < p.raw/2:
			rewrite = append(rewrite, plan{p, live})
		}
	}
	if len(rewrite) > 0 {
		w, err := newPackWriter(s.packs.dir)
		if err != nil {
			return err
		}
		var block []packObj
		size := 0
		copied := 0
		for _, r := range rewrite {
			// In block order, so that each block is decompressed once.
			slices.SortFunc(r.live, func(a, b int) int {
				ea, eb := r.p.entryAt(a), r.p.entryAt(b)
				return cmp.Or(cmp.Compare(ea.block, eb.block), cmp.Compare(ea.off, eb.off))
			})
			whole := true
			for _, i := range r.live {
				hash := hex.EncodeToString(r.p.hashAt(i))
				data, err := s.packs.readFrom(r.p, i, hash)
				if err != nil {
					whole = false // kept as it is: nothing is lost by pruning
					break
				}
				block = append(block, packObj{hash: [32]byte(r.p.hashAt(i)), data: data})
				if size += len(data); size >= packBlockBytes {
					if err := w.add(block); err != nil {
						w.abort()
						return err
					}
					block, size = nil, 0
				}
			}
			if whole {
				drop = append(drop, r.p.name)
				copied++
			}
		}
		if len(block) > 0 {
			if err := w.add(block); err != nil {
				w.abort()
				return err
			}
		}
		if copied == 0 {
			w.abort()
		} else {
			p, err := w.finish()
			if err != nil {
				return err
			}
			s.packs.add(p)
		}
	}
	for _, name := range drop {
		os.Remove(filepath.Join(s.packs.dir, name))
	}
	s.packs.forget(drop)
	if len(drop) > 0 {
		syncDir(s.packs.dir)
	}
	return nil
}
