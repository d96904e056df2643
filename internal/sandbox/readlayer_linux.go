package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// A read-only command is confined by two Landlock layers, and a right is
// granted only when both grant it. The read layer handles reading and
// executing and lists the hundred-odd paths a read-only command may read;
// the write layer handles everything else and grants writing in the
// private temporary directory and the data sinks. Adding a rule costs a
// few system calls, so the read layer is built once and kept: each
// command adds only its temporary directory to it, and restricts itself
// with it. It is rebuilt when what it lists changes (another environment
// or policy, a path replaced: its parent directory's change time moves)
// and after readLayerReuse commands, whose temporary directories it has
// collected; until then a command may read, not write, the temporary
// directories of the commands before it.

// readRights are the rights the read layer handles.
const readRights = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir

// readLayerReuse bounds how many commands use one read layer.
const readLayerReuse = 64

// readLayer is the kept read layer.
var readLayer struct {
	mu    sync.Mutex
	key   string
	fd    int // 0: none
	flags uint32
	uses  int
}

// restrictReads applies the read layer for p and env, with p's writable
// directories (its temporary one) readable, to the calling thread, which
// must have no_new_privs set.
func restrictReads(p Policy, env []string) error {
	cfg, rules, key := readRuleset(p, env)
	readLayer.mu.Lock()
	defer readLayer.mu.Unlock()
	if readLayer.fd != 0 && (readLayer.key != key || readLayer.uses >= readLayerReuse) {
		_ = unix.Close(readLayer.fd)
		readLayer.fd = 0
	}
	if readLayer.fd == 0 {
		fd, flags, err := cfg.NewRulesetFD(rules...)
		if err != nil {
			return fmt.Errorf("build the Landlock read layer: %w", err)
		}
		if fd < 0 {
			return errors.New("the Landlock read layer is empty; refusing to run unconfined")
		}
		readLayer.fd, readLayer.flags, readLayer.key, readLayer.uses = fd, flags, key, 0
	}
	readLayer.uses++
	for _, d := range p.WritableDirs {
		if err := addReadable(readLayer.fd, d); err != nil {
			return err
		}
	}
	if err := ll.LandlockRestrictSelf(readLayer.fd, readLayer.flags); err != nil {
		return fmt.Errorf("landlock_restrict_self (reads): %w", err)
	}
	return nil
}

// addReadable adds a rule that lets dir be read to the ruleset fd.
func addReadable(fd int, dir string) error {
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil // as a missing writable directory is ignored
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstat(dfd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	access := uint64(readRights)
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &^= ll.AccessFSReadDir // a file has no directory rights
	}
	attr := ll.PathBeneathAttr{ParentFd: dfd, AllowedAccess: access}
	if err := ll.LandlockAddPathBeneathRule(fd, &attr, 0); err != nil {
		return fmt.Errorf("landlock_add_rule %s: %w", dir, err)
	}
	return nil
}

// readRuleset returns the read layer's configuration and rules for p and
// env, and a key that changes when they, or any path they name, change.
func readRuleset(p Policy, env []string) (landlock.Config, []landlock.Rule, string) {
	cfg := landlock.V11.BestEffort()
	cfg.HandledAccessFS = readRights
	cfg.HandledAccessNet = 0
	cfg.Scoped = 0
	set := readOnlySet(p, env)
	rules := []landlock.Rule{
		landlock.RODirs(set.dirs...).IgnoreIfMissing(),
		landlock.ROFiles(set.files...).IgnoreIfMissing(),
		// Listing /dev shows names only; of its devices, only the data
		// sinks can be opened, never a disk or a terminal.
		landlock.PathAccess(ll.AccessFSReadDir, "/dev").IgnoreIfMissing(),
		landlock.ROFiles(sinkFiles...).IgnoreIfMissing(),
	}
	key := set.key()
	if !p.ReadOnly {
		// A command that may use terminals and shared memory reads them
		// too.
		rules = append(rules,
			landlock.ROFiles(devFiles...).IgnoreIfMissing(),
			landlock.RODirs(devDirs...).IgnoreIfMissing())
		key += "\x02devices"
	}
	return cfg, rules, key
}

// key lists the set's paths and the identity and change time of each
// one's parent directory: replacing, creating or removing an entry
// changes its parent's, and a rule names an inode, not a path.
func (r readableSet) key() string {
	var b strings.Builder
	parents := map[string]bool{}
	for _, list := range [][]string{r.dirs, r.files} {
		for _, p := range list {
			b.WriteString(p)
			b.WriteByte(0)
			parents[filepath.Dir(p)] = true
		}
		b.WriteByte(1)
	}
	for _, d := range slices.Sorted(maps.Keys(parents)) {
		var st unix.Stat_t
		if unix.Stat(d, &st) != nil {
			continue
		}
		b.WriteString(d + "\x00" + strconv.FormatUint(st.Dev, 16) + ":" + strconv.FormatUint(st.Ino, 16) + ":" +
			strconv.FormatInt(st.Ctim.Nano(), 16) + "\x00")
	}
	return b.String()
}
