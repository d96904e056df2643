package checkpoint

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/plyhq/ply/internal/ignore"
)

// trackMask is every change to a directory's entries or to the files in
// it that a checkpoint records: content, mode, links, names.
const trackMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// tracker watches, with inotify, every directory a scan listed, so that
// the next checkpoint lists again only the directories where something
// happened. It lives as long as its Store, in one process: a new process
// scans in full.
type tracker struct {
	fd    int
	roots []string
	limit int // the most watches it may hold

	mu     sync.Mutex // guards what follows; watch is called from scan workers
	dirs   map[int32]trackedDir
	broken bool // a watch failed: what it would have seen is unknown
	// exhausted is set when the watches ran out (the limit, ENOSPC):
	// a new tracker would run out again.
	exhausted bool
	// exclude is what excludeStats said before the full scan.
	exclude []string
	buf     []byte
}

type trackedDir struct {
	root int
	rel  string // "" for the root
}

// newTracker returns a tracker for roots, or nil when inotify is not
// available (a limit on instances, a kernel without it).
func newTracker(roots []string) *tracker {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &tracker{fd: fd, roots: roots, limit: watchLimit(), dirs: map[int32]trackedDir{}, buf: make([]byte, 64<<10)}
}

// testWatchLimit, when set by a test, replaces watchLimit's answer.
var testWatchLimit int

// watchLimit is the share of the user's inotify watches a tracker may
// take: a quarter, so that editors and build tools keep theirs.
func watchLimit() int {
	if testWatchLimit > 0 {
		return testWatchLimit
	}
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 2048
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 4 {
		return 2048
	}
	return n / 4
}

func (t *tracker) close() { unix.Close(t.fd) }

// watched returns the number of watches held.
func (t *tracker) watched() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.dirs)
}

// watch starts watching the directory abs (rel under root ri), before the
// scan lists it: a change after this call is reported, one before it is
// seen by the listing.
func (t *tracker) watch(ri int, abs string) {
	rel := ""
	if r := t.roots[ri]; len(abs) > len(r) {
		rel = strings.TrimPrefix(abs[len(r):], "/")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.broken {
		return
	}
	if len(t.dirs) >= t.limit {
		t.broken, t.exhausted = true, true
		return
	}
	mask := uint32(trackMask)
	if rel == "" {
		mask &^= unix.IN_DONT_FOLLOW // a root may be named through a link
	}
	wd, err := unix.InotifyAddWatch(t.fd, abs, mask)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.EACCES):
		// Removed or replaced since its parent was listed, or
		// unreadable (the scan cannot list it either): the parent's
		// watch sees it change.
		return
	default:
		t.broken = true // this directory cannot be trusted
		t.exhausted = errors.Is(err, unix.ENOSPC)
		return
	}
	t.dirs[int32(wd)] = trackedDir{ri, rel}
}

// changes is what a tracker saw since the last drain.
type changes struct {
	full bool                // the tracker cannot tell: scan everything
	dirs map[trackedDir]bool // directories to list again; true: with their subdirectories
}

// drain reads the events queued since the last call. Unknown
// descriptors are those of directories whose watch was replaced or
// removed; every change they could report is seen by another watch.
func (t *tracker) drain() changes {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := changes{full: t.broken, dirs: map[trackedDir]bool{}}
	for !c.full {
		n, err := unix.Read(t.fd, t.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			if !errors.Is(err, unix.EAGAIN) {
				c.full = true
			}
			break
		}
		t.parse(t.buf[:n], &c)
	}
	if c.full {
		c.dirs = nil
	}
	return c
}

func (t *tracker) parse(buf []byte, c *changes) {
	for len(buf) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(buf) {
			c.full = true
			return
		}
		name := string(buf[unix.SizeofInotifyEvent:end])
		if i := strings.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		buf = buf[end:]
		t.event(ev.Wd, ev.Mask, name, c)
	}
}

// event records one event: a file's change marks its directory, a
// subdirectory's marks its directory with its subtree; a change to the
// ignore rules, a lost queue or a root gone asks for a full scan.
func (t *tracker) event(wd int32, mask uint32, name string, c *changes) {
	if mask&unix.IN_Q_OVERFLOW != 0 || mask&unix.IN_UNMOUNT != 0 {
		c.full = true
		return
	}
	d, ok := t.dirs[wd]
	if !ok {
		return
	}
	if mask&unix.IN_IGNORED != 0 {
		delete(t.dirs, wd) // removed by the kernel: the directory is gone
	}
	switch {
	case name == "":
		// The directory itself: deleted, moved, its mode changed.
		if d.rel == "" && mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ATTRIB) != 0 {
			c.full = true
			return
		}
		if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ATTRIB) != 0 {
			c.dirs[d] = true
			c.dirs[trackedDir{d.root, parentDir(d.rel)}] = true
		}
	case ignore.AlwaysIgnored(name):
	case name == ".gitignore" || name == ".plyignore":
		c.full = true
	case mask&unix.IN_ISDIR != 0:
		c.dirs[d] = true
	default:
		if !c.dirs[d] {
			c.dirs[d] = false
		}
	}
}
