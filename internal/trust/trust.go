// Package trust owns the list of folders the user trusts, kept in
// $PLY_HOME/trusted-folders.json. A folder is untrusted until the user
// trusts it or one of its ancestors; only then may ply load what the
// folder says about itself that can run code, loosen approval or redirect
// credentials (its .ply/settings.json, its agents).
//
// The file is JSON (comments and trailing commas allowed):
//
//	{"trusted": [{"path": "/home/me/src/ply", "added": "2026-12-03T15:00:00Z"}]}
//
// Paths are absolute and stored with symlinks resolved, so a folder is
// trusted under whatever name it is reached by. The file is replaced
// atomically; a file that does not parse is reported with its line and
// column and trusts nothing.
package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/settings"
)

// FileName is the list's name under ply's home.
const FileName = "trusted-folders.json"

// Folder is one trusted folder: it and everything under it.
type Folder struct {
	Path  string    `json:"path"`
	Added time.Time `json:"added,omitzero"`
}

// List is the trusted folders and the file they came from.
type List struct {
	path    string
	folders []Folder
}

type fileFormat struct {
	Trusted []Folder `json:"trusted"`
}

// Load reads the list at path. A missing file is an empty list. A file
// that does not parse, or names a relative path, is an error; the list
// returned with it is empty (nothing is trusted) but can still be saved
// to path, which replaces the broken file.
func Load(path string) (*List, error) {
	l := &List{path: path}
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("reading the trusted folders: %w", err)
	}
	folders, err := parse(path, src)
	if err != nil {
		return l, err
	}
	l.folders = folders
	return l, nil
}

// parse decodes the file's contents; blank contents are an empty list.
func parse(path string, src []byte) ([]Folder, error) {
	if len(bytes.TrimSpace(settings.StripJSONC(src))) == 0 {
		return nil, nil
	}
	var f fileFormat
	if err := settings.DecodeJSONC(path, src, &f); err != nil {
		return nil, err
	}
	out := make([]Folder, 0, len(f.Trusted))
	for _, fo := range f.Trusted {
		if !filepath.IsAbs(fo.Path) {
			line := 1
			if q, err := json.Marshal(fo.Path); err == nil {
				if i := bytes.Index(src, q); i >= 0 {
					line += bytes.Count(src[:i], []byte("\n"))
				}
			}
			return nil, &settings.SyntaxError{Path: path, Line: line, Column: 1,
				Msg: fmt.Sprintf("trusted folder %q is not an absolute path", fo.Path)}
		}
		fo.Path = filepath.Clean(fo.Path)
		out = append(out, fo)
	}
	return out, nil
}

// Path is the file the list is kept in.
func (l *List) Path() string { return l.path }

// Folders returns the trusted folders in the order they were added.
func (l *List) Folders() []Folder { return slices.Clone(l.folders) }

// Canonical returns dir as the list stores it: absolute, clean, with
// symlinks resolved when it exists.
func Canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return filepath.Clean(abs), nil
}

// Trusted reports whether dir is trusted and, if so, the entry that
// trusts it (dir itself or an ancestor).
func (l *List) Trusted(dir string) (Folder, bool) {
	dir, err := Canonical(dir)
	if err != nil {
		return Folder{}, false
	}
	for _, f := range l.folders {
		if Within(dir, f.Path) {
			return f, true
		}
	}
	return Folder{}, false
}

// Within reports whether dir is root or lies under it; both are clean
// absolute paths. It compares whole path components: /a/bc is not within
// /a/b.
func Within(dir, root string) bool {
	if dir == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(dir, root)
}

// Add trusts dir (made canonical) from now on and reports whether that
// changed the list; a folder already listed is not added twice.
func (l *List) Add(dir string, now time.Time) (string, bool, error) {
	dir, err := Canonical(dir)
	if err != nil {
		return "", false, err
	}
	for _, f := range l.folders {
		if f.Path == dir {
			return dir, false, nil
		}
	}
	l.folders = append(l.folders, Folder{Path: dir, Added: now.UTC().Truncate(time.Second)})
	return dir, true, nil
}

// Remove stops trusting dir and reports whether it was listed. Only the
// entry for dir itself is removed: a trusted ancestor still trusts it.
func (l *List) Remove(dir string) (string, bool, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, fmt.Errorf("resolving %s: %w", dir, err)
	}
	canon, err := Canonical(dir)
	if err != nil {
		return "", false, err
	}
	n := len(l.folders)
	l.folders = slices.DeleteFunc(l.folders, func(f Folder) bool {
		// A listed folder that has since been deleted or moved no longer
		// resolves: match the name as given too.
		return f.Path == canon || f.Path == filepath.Clean(abs)
	})
	return canon, len(l.folders) != n, nil
}

// Save writes the list to its file atomically: a temporary file in the
// same directory, synced, then renamed over the old one, so a reader sees
// the old list or the new one, never a torn mix.
func (l *List) Save() (err error) {
	data, err := json.MarshalIndent(fileFormat{Trusted: l.folders}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the trusted folders: %w", err)
	}
	data = append(data, '\n')
	dir := filepath.Dir(l.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("saving the trusted folders: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(l.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("saving the trusted folders: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("saving the trusted folders: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("saving the trusted folders: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("saving the trusted folders: %w", err)
	}
	if err = os.Rename(tmp.Name(), l.path); err != nil {
		return fmt.Errorf("saving the trusted folders: %w", err)
	}
	return nil
}

// Edit changes the list at path under an exclusive lock, so two ply
// processes trusting folders at once both keep their change: it loads
// the list, calls edit, and saves the result if edit returns nil. A
// broken file is returned as Load's error and left as it is.
func Edit(path string, edit func(*List) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("saving the trusted folders: %w", err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the trusted folders: %w", err)
	}
	defer unlock()
	l, err := Load(path)
	if err != nil {
		return err
	}
	if err := edit(l); err != nil {
		return err
	}
	return l.Save()
}
