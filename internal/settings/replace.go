package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadToReplace reads the settings file at path for a change that writes
// it anew with [WriteReplacing]: its bytes (nil when there is no file yet,
// once its directory is made) and the mode to write it back with (the
// file's own, or 0644 for a new one).
func ReadToReplace(path string) ([]byte, fs.FileMode, error) {
	src, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, 0, err
		}
	case err != nil:
		return nil, 0, err
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	return src, mode, nil
}

// WriteReplacing replaces the file at path with data through a temporary
// file in its directory, so that a reader never sees half of it.
func WriteReplacing(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".settings-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(mode)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
	}
	return werr
}
