package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Durability. Contents are written without a sync as a scan finds them;
// before a manifest names them they are made durable, file by file when
// few (each file, then each directory holding a new one), by one sync of
// the whole file system when many (a cold checkpoint), which costs one
// call instead of thousands. A manifest and the record of the last rewind
// are synced before their rename and their directory after it; HEAD, a
// hint for the stat cache, is not. A manifest is written and synced under
// its temporary name while the contents it names are synced, and renamed
// only once both are done: the two wait for the disk together.
// A pack is synced whole, renamed and its directory synced by its writer
// (pack.go), before the manifest too.
// A crash thus leaves at worst contents no manifest names (pruning
// removes them) or a manifest that HEAD does not name yet.

// syncFileByFile is the most new contents synced one by one.
const syncFileByFile = 64

// syncHook, when set by a test, is told of each sync, in order.
var syncHook func(what string)

// blobSync returns the sync of the new contents hashes for
// writeDurableAfter; nil when there are none.
func (s *Store) blobSync(hashes []string) func() error {
	if len(hashes) == 0 {
		return nil
	}
	return func() error { return s.syncBlobs(hashes) }
}

// syncBlobs makes the contents hashes durable.
func (s *Store) syncBlobs(hashes []string) error {
	if len(hashes) == 0 {
		return nil
	}
	if len(hashes) > syncFileByFile {
		if err := syncFS(s.dir); err == nil {
			if syncHook != nil {
				syncHook("filesystem")
			}
			return nil
		}
	}
	var dirs []string
	for _, h := range hashes {
		p := s.blobPath(h)
		if err := syncPath(p); err != nil {
			return fmt.Errorf("checkpoint: sync saved content: %w", err)
		}
		if syncHook != nil {
			syncHook("blob " + h)
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	slices.Sort(dirs)
	for _, d := range slices.Compact(dirs) {
		syncDir(d)
	}
	return nil
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes the entries of dir durable where the system can; a file
// system that cannot sync a directory is not an error.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
	if syncHook != nil {
		syncHook("dir " + dir)
	}
}

// writeDurable writes data to a temporary file beside path, syncs it,
// renames it over path and syncs the directory.
func writeDurable(path string, data []byte) error {
	return writeDurableAfter(path, data, nil)
}

// writeDurableAfter is writeDurable that names the file only once before
// has returned nil: the temporary file is written and synced while before
// runs (the syncs of the contents a manifest names), so that the two
// wait for the disk together instead of one after the other.
func writeDurableAfter(path string, data []byte, before func() error) error {
	var beforeErr error
	done := make(chan struct{})
	if before != nil {
		go func() {
			defer close(done)
			beforeErr = before()
		}()
	} else {
		close(done)
	}
	tmp := tempName(path)
	err := writeSynced(tmp, data)
	<-done
	if err == nil && beforeErr != nil {
		os.Remove(tmp)
		return beforeErr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: write %s: %w", filepath.Base(path), err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeSynced creates the file path, which must not exist, with data,
// and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
