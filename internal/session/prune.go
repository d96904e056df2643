package session

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ArtifactDir returns the directory that holds what a session keeps
// beside its transcript (spilled tool outputs, saved full tool results):
// <home>/projects/<hash>/<id>. It is removed with the session. The
// directory is not created here.
func ArtifactDir(home, workspace, id string) (string, error) {
	if !validID(id) {
		return "", fmt.Errorf("session: invalid session id %q", id)
	}
	dir, err := ProjectDir(home, workspace)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, id), nil
}

// Dir returns the session's artifact directory (see ArtifactDir): the
// transcript's path without its extension.
func (w *Writer) Dir() string { return strings.TrimSuffix(w.path, ext) }

// Prune removes the sessions of workspace whose transcript was last
// written before cutoff: the transcript, its artifact directory and any
// other file named after the session. An artifact directory whose
// transcript is gone is removed when it, too, is older than cutoff. It
// returns the sessions removed; an error names the first entry that could
// not be removed, after trying the others.
func Prune(home, workspace string, cutoff time.Time) ([]Summary, error) {
	dir, files, err := sessionFiles(home, workspace)
	if err != nil {
		return nil, err
	}
	var removed []Summary
	var errs []error
	kept := map[string]bool{}
	for _, f := range files {
		id := strings.TrimSuffix(f.name, ext)
		if !f.mod.Before(cutoff) {
			kept[id] = true
			continue
		}
		if err := removeSession(dir, id); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, Summary{ID: id, Path: filepath.Join(dir, f.name), Modified: f.mod})
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("session: prune %s: %w", dir, err))
	}
	for _, e := range entries {
		id := e.Name()
		if !e.IsDir() || !validID(id) || kept[id] {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, id+ext)); err == nil {
			continue // its session is kept
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			if err := os.RemoveAll(filepath.Join(dir, id)); err != nil {
				errs = append(errs, fmt.Errorf("session: prune %s: %w", id, err))
			}
		}
	}
	return removed, errors.Join(errs...)
}

// removeSession removes the artifact directory of id first, then the
// files kept beside the transcript (id.lock, id.jsonl.*), the transcript
// last: a prune cut short leaves a transcript that a later prune finds
// again. Ids may hold dots, so nothing broader than these names is
// matched: "a.*" would take session "a.b" along.
func removeSession(dir, id string) error {
	if err := os.RemoveAll(filepath.Join(dir, id)); err != nil {
		return fmt.Errorf("session: prune %s: %w", id, err)
	}
	transcript := filepath.Join(dir, id+ext)
	sidecars, err := filepath.Glob(globEscape(transcript) + ".*")
	if err != nil {
		return fmt.Errorf("session: prune %s: %w", id, err)
	}
	sidecars = append(sidecars, filepath.Join(dir, id+".lock"))
	for _, p := range sidecars {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("session: prune %s: %w", id, err)
		}
	}
	if err := os.Remove(transcript); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session: prune %s: %w", id, err)
	}
	return nil
}

// globEscape escapes the pattern characters of s.
func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// ParseAge reads an age for Prune: a Go duration ("36h", "90m") or a
// number of days ("30d", "1.5d"). It must be positive.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, fmt.Errorf("age %q: want a duration such as 30d or 12h", s)
		}
		h := n * 24 * float64(time.Hour)
		if h >= math.MaxInt64 || h <= math.MinInt64 {
			return 0, fmt.Errorf("age %q is too large", s)
		}
		d = time.Duration(h)
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("age %q: want a duration such as 30d or 12h", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("age %q must be more than zero", s)
	}
	return d, nil
}
