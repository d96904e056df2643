package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dropFromPageCache writes the file out and drops its pages from the page
// cache, so that the first run reads it from disk, as an installed binary
// is read after a restart. How many pages one fault maps depends on how
// the file's pages entered the cache (the linker writing it, a copy, the
// kernel's read-ahead): dropping them first gives every build the same
// start, and the peak RSS and page faults measured are ply's, not those
// of how the build wrote the file.
func dropFromPageCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s out: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("dropping %s from the page cache: %w", path, err)
	}
	return nil
}
