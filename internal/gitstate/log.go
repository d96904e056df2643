package gitstate

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// commit is what the log needs of a commit object.
type commit struct {
	ID      oid
	Tree    oid
	Parents []oid
	Date    uint64 // the committer's time, as git parses it
	Subject string // the first paragraph of the message on one line
}

// maxParents caps the parents of one commit.
const maxParents = 256

// parseCommit parses a commit object as git does: a tree line, parent
// lines right after it, the committer's date, and the message's first
// paragraph. A message in an encoding other than UTF-8 is unsupported:
// git would convert it.
func parseCommit(id oid, data []byte) (*commit, error) {
	c := &commit{ID: id}
	b := data
	if len(b) < 46 || string(b[:5]) != "tree " || b[45] != '\n' {
		return nil, fmt.Errorf("%w: bogus commit %x", errObject, id)
	}
	t, err := parseHex(string(b[5:45]))
	if err != nil {
		return nil, fmt.Errorf("%w: bogus commit %x", errObject, id)
	}
	c.Tree = t
	b = b[46:]
	for len(b) > 48 && string(b[:7]) == "parent " {
		if b[47] != '\n' {
			return nil, fmt.Errorf("%w: bad parents in commit %x", errObject, id)
		}
		p, err := parseHex(string(b[7:47]))
		if err != nil {
			return nil, fmt.Errorf("%w: bad parents in commit %x", errObject, id)
		}
		if len(c.Parents) >= maxParents {
			return nil, unsupported("a commit with too many parents")
		}
		c.Parents = append(c.Parents, p)
		b = b[48:]
	}
	c.Date = commitDate(b)
	header, msg, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range bytes.Split(header, []byte{'\n'}) {
		if enc, ok := bytes.CutPrefix(line, []byte("encoding ")); ok {
			if e := strings.ToLower(string(enc)); e != "utf-8" && e != "utf8" {
				return nil, unsupported("a commit message in " + string(enc))
			}
		}
	}
	c.Subject = subject(msg)
	return c, nil
}

// commitDate is git's parse_commit_date: the number after the '>' of a
// committer line that follows the author line, 0 when anything is off.
func commitDate(b []byte) uint64 {
	if !bytes.HasPrefix(b, []byte("author")) {
		return 0
	}
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return 0
	}
	b = b[nl+1:]
	if !bytes.HasPrefix(b, []byte("committer")) {
		return 0
	}
	gt := bytes.IndexByte(b, '>')
	if gt < 0 {
		return 0
	}
	b = b[gt+1:]
	nl = bytes.IndexByte(b, '\n')
	if nl < 0 {
		return 0
	}
	b = bytes.TrimLeft(b[:nl], " \t\v\f\r")
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 1<<64 - 1
		}
		n = n*10 + d
	}
	return n
}

// subject is git's one-line subject: blank lines skipped, then the lines
// up to the next blank one, each without trailing white space, joined
// with spaces.
func subject(msg []byte) string {
	lines := strings.Split(string(msg), "\n")
	i := 0
	for i < len(lines) && isBlank(lines[i]) {
		i++
	}
	var parts []string
	for ; i < len(lines); i++ {
		if isBlank(lines[i]) {
			break
		}
		parts = append(parts, strings.TrimRight(lines[i], " \t\n\v\f\r"))
	}
	return strings.Join(parts, " ")
}

func isBlank(s string) bool { return strings.TrimRight(s, " \t\n\v\f\r") == "" }

// readCommit reads and parses the commit id.
func (s *store) readCommit(id oid) (*commit, error) {
	t, data, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if t != typeCommit {
		return nil, fmt.Errorf("%w: %x is not a commit", errObject, id)
	}
	return parseCommit(id, data)
}

// logLines lists up to n commits from head as git log --oneline does by
// default: the newest commit date first, commits of equal dates in the
// order they were reached.
func logLines(s *store, head oid, n int) ([]string, error) {
	first, err := s.readCommit(head)
	if err != nil {
		return nil, err
	}
	queue := []*commit{first}
	seen := map[oid]bool{head: true}
	var out []string
	for len(queue) > 0 && len(out) < n {
		c := queue[0]
		queue = queue[1:]
		for _, p := range c.Parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			pc, err := s.readCommit(p)
			if err != nil {
				return nil, err
			}
			// After every queued commit at least as new.
			i := 0
			for i < len(queue) && queue[i].Date >= pc.Date {
				i++
			}
			queue = append(queue[:i], append([]*commit{pc}, queue[i:]...)...)
		}
		l, err := s.abbrevLen(c.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, hex.EncodeToString(c.ID[:])[:l]+" "+c.Subject)
	}
	return out, nil
}

// errTree is a tree object git would refuse.
var errTree = errors.New("tree")

// treeEntry is one entry of a tree object.
type treeEntry struct {
	Name string
	Mode uint32
	ID   oid
}

// parseTree parses a tree object: entries of "mode name\0id".
func parseTree(b []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp <= 0 || sp > 7 {
			return nil, fmt.Errorf("%w: bad mode", errTree)
		}
		var mode uint32
		for _, c := range b[:sp] {
			if c < '0' || c > '7' {
				return nil, fmt.Errorf("%w: bad mode", errTree)
			}
			mode = mode<<3 | uint32(c-'0')
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		if nul <= 0 || len(b) < nul+21 {
			return nil, fmt.Errorf("%w: truncated entry", errTree)
		}
		name := string(b[:nul])
		if name == "." || name == ".." || strings.IndexByte(name, '/') >= 0 {
			return nil, fmt.Errorf("%w: bad name %q", errTree, name)
		}
		var id oid
		copy(id[:], b[nul+1:nul+21])
		b = b[nul+21:]
		out = append(out, treeEntry{Name: name, Mode: canonMode(mode), ID: id})
	}
	return out, nil
}

// canonMode is git's canon_mode: a regular file is 644 or 755 by its
// owner's executable bit.
func canonMode(m uint32) uint32 {
	switch m & 0o170000 {
	case 0o100000:
		if m&0o100 != 0 {
			return modeExec
		}
		return modeFile
	case 0o120000:
		return modeLink
	case 0o040000:
		return modeTree
	}
	return modeGitlink
}
