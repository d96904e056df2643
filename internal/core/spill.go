package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// dirSpiller saves the full text of tool results that context recovery
// cut, in the session's directory, which read_file and grep_search may
// read for this session (it is removed with the session).
type dirSpiller struct{ dir string }

func (s dirSpiller) Save(_ context.Context, name string, data []byte) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("saving a cut tool result: bad name %q", name)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", fmt.Errorf("saving a cut tool result: %w", err)
	}
	path := filepath.Join(s.dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if os.IsExist(err) {
		return path, nil // the same result, saved by an earlier cut
	}
	if err != nil {
		return "", fmt.Errorf("saving a cut tool result: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("saving a cut tool result: %w", err)
	}
	return path, nil
}
