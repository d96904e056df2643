package checkpoint

import (
	"cmp"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/ignore"
)

// maxIgnoreFile bounds the ignore files a restore reads back from a
// checkpoint, as the scan's walk bounds those it reads from the tree.
const maxIgnoreFile = 4 << 20

// targetIgnores answers, for the paths a restore would delete, whether
// the ignore rules of the target checkpoint excluded them. Such a path was
// never recorded by the target: its absence there says nothing about
// whether it should exist, and deleting it would destroy what no
// checkpoint holds (the user's .env after the model rewrote .gitignore).
//
// The rules are those of the .gitignore and .plyignore files the target
// recorded, read back from the store, and the root's current
// .git/info/exclude, which no checkpoint records.
type targetIgnores struct {
	s      *Store
	m      *Manifest
	stacks map[trackedDir]dirRules
}

// dirRules are the rules that apply to the entries of one directory.
// unknown is set when an ignore file of the target could not be read
// back: nothing beneath it is deleted then.
type dirRules struct {
	stack   *ignore.Stack
	unknown bool
}

func newTargetIgnores(s *Store, m *Manifest) *targetIgnores {
	return &targetIgnores{s: s, m: m, stacks: map[trackedDir]dirRules{}}
}

// excluded reports whether rel, a file or link under root ri, or one of
// its parent directories, was excluded by the target's rules. Like the
// walk, it stops at the first ignored directory: nothing beneath one can
// be included again.
func (t *targetIgnores) excluded(ri int, rel string) bool {
	for i := 0; ; {
		dir := ""
		if i > 0 {
			dir = rel[:i-1]
		}
		r := t.rules(ri, dir)
		if r.unknown {
			return true
		}
		j := strings.IndexByte(rel[i:], '/')
		if j < 0 {
			return r.stack.Ignored(rel, false)
		}
		if r.stack.Ignored(rel[:i+j], true) {
			return true
		}
		i += j + 1
	}
}

// rules returns the rules for the entries of dir under root ri: its
// parent's, with dir's own .gitignore and then .plyignore on top, as the
// scan's walk stacks them.
func (t *targetIgnores) rules(ri int, dir string) dirRules {
	k := trackedDir{ri, dir}
	if r, ok := t.stacks[k]; ok {
		return r
	}
	var r dirRules
	if dir == "" {
		r.stack = r.stack.Push(t.infoExclude(ri))
	} else {
		r = t.rules(ri, parentDir(dir))
	}
	for _, name := range []string{".gitignore", ".plyignore"} {
		m, ok := t.load(ri, dir, name)
		if !ok {
			r.unknown = true
		}
		r.stack = r.stack.Push(m)
	}
	t.stacks[k] = r
	return r
}

// load parses the ignore file name of dir as the target recorded it;
// ok is false when it was recorded but cannot be read back.
func (t *targetIgnores) load(ri int, dir, name string) (m *ignore.Matcher, ok bool) {
	rel := path.Join(dir, name)
	es := t.m.Entries
	i, found := slices.BinarySearchFunc(es, rel, func(e Entry, rel string) int {
		return cmp.Or(cmp.Compare(e.Root, ri), cmp.Compare(e.Rel, rel))
	})
	if !found || es[i].Kind != KindFile || es[i].Size > maxIgnoreFile {
		// The walk reads regular files within its bound only.
		return nil, true
	}
	data, err := t.s.readBlob(es[i].Hash, es[i].Size)
	if err != nil {
		return nil, false
	}
	return ignore.Parse(dir, data), true
}

// infoExclude parses the root's .git/info/exclude as it is now.
func (t *targetIgnores) infoExclude(ri int) *ignore.Matcher {
	p := filepath.Join(t.m.Roots[ri], ".git", "info", "exclude")
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFile {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	return ignore.Parse("", data)
}
