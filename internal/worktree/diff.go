package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxCountBytes caps what is read of an untracked file to count its lines.
const maxCountBytes = 8 << 20

// FileStat is one file's change: lines added and deleted, or Binary.
type FileStat struct {
	Path              string
	Added, Deleted    int
	Binary, Untracked bool
}

// Summary is what a worktree changed since a commit: committed, staged,
// unstaged and untracked changes together.
type Summary struct {
	Files          []FileStat
	Added, Deleted int
}

// String is git's shortstat line: "2 files changed, +10 -3".
func (s Summary) String() string {
	if len(s.Files) == 0 {
		return "no files changed"
	}
	word := "files"
	if len(s.Files) == 1 {
		word = "file"
	}
	return fmt.Sprintf("%d %s changed, +%d -%d", len(s.Files), word, s.Added, s.Deleted)
}

// Diff summarizes what the work tree at path changed since the commit
// base.
func (r *Repo) Diff(ctx context.Context, path, base string) (Summary, error) {
	out, err := r.git(ctx, path, "diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", base, "--")
	if err != nil {
		return Summary{}, fmt.Errorf("comparing %s with %s: %w", path, base, err)
	}
	s := Summary{Files: ParseNumstat([]byte(out))}
	untracked, err := r.git(ctx, path, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return Summary{}, fmt.Errorf("listing untracked files of %s: %w", path, err)
	}
	for _, f := range strings.Split(untracked, "\x00") {
		if f == "" {
			continue
		}
		s.Files = append(s.Files, countFile(filepath.Join(path, filepath.FromSlash(f)), f))
	}
	for _, f := range s.Files {
		s.Added += f.Added
		s.Deleted += f.Deleted
	}
	return s, nil
}

// countFile counts the lines of a new file as git would add them.
func countFile(abs, rel string) FileStat {
	st := FileStat{Path: rel, Untracked: true}
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCountBytes {
		st.Binary = true
		return st
	}
	data, err := os.ReadFile(abs)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		st.Binary = true
		return st
	}
	st.Added = bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		st.Added++
	}
	return st
}

// ParseNumstat reads git diff --numstat -z --no-renames: for each file,
// "added<TAB>deleted<TAB>path" and a NUL, "-" for both counts of a binary
// file. Malformed records are skipped.
func ParseNumstat(out []byte) []FileStat {
	var files []FileStat
	for _, rec := range bytes.Split(out, []byte{0}) {
		a, rest, ok1 := bytes.Cut(rec, []byte{'\t'})
		d, path, ok2 := bytes.Cut(rest, []byte{'\t'})
		if !ok1 || !ok2 || len(path) == 0 {
			continue
		}
		st := FileStat{Path: string(path)}
		if string(a) == "-" && string(d) == "-" {
			st.Binary = true
		} else {
			na, err1 := strconv.Atoi(string(a))
			nd, err2 := strconv.Atoi(string(d))
			if err1 != nil || err2 != nil || na < 0 || nd < 0 {
				continue
			}
			st.Added, st.Deleted = na, nd
		}
		files = append(files, st)
	}
	return files
}
