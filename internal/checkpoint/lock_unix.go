//go:build unix

package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// lock takes the store's lock file exclusively (flock), so that two ply
// processes on one store take turns to write, restore and prune; it
// waits for the other until ctx ends. The lock goes with the process: a
// killed holder leaves nothing to clean up.
func (s *Store) lock(ctx context.Context) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(s.dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: lock the store: %w", err)
	}
	fd := int(f.Fd())
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases it
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			f.Close()
			return nil, fmt.Errorf("checkpoint: lock the store: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("checkpoint: waiting for another ply using the store: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
}
