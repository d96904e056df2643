package tools

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// A file ply replaces in a workspace is first written whole to a
// temporary name beside it, ".NAME.ply-tmp-PID-RANDOM", PID the writer's
// process id: one that a killed writer left behind can then be told from
// one being written, whose writer is still alive.

// tempMark is what every temporary name holds.
const tempMark = ".ply-tmp-"

// staleAge is how old a temporary file of an older ply, whose name holds
// no process id, must be to be taken as left behind.
const staleAge = 24 * time.Hour

// TempName returns a fresh temporary name for replacing the file named
// base, kept under NAME_MAX.
func TempName(base string) string {
	return tempPrefix(base) + strconv.FormatUint(rand.Uint64(), 36)
}

// tempPrefix is a temporary name up to its random part.
func tempPrefix(base string) string {
	if len(base) > 200 {
		base = base[:200]
	}
	return "." + base + tempMark + strconv.Itoa(os.Getpid()) + "-"
}

// IsTempName reports whether name is a temporary file of ply's, and
// the process id of its writer, 0 when the name (an older ply's) has none.
func IsTempName(name string) (pid int, ok bool) {
	if rest, found := strings.CutPrefix(name, ".ply-restore-"); found {
		return 0, isLowerAlnum(rest) // an older ply's restore
	}
	i := strings.LastIndex(name, tempMark)
	if i < 1 || name[0] != '.' {
		return 0, false
	}
	rest := name[i+len(tempMark):]
	p, random, found := strings.Cut(rest, "-")
	if !found {
		return 0, isLowerAlnum(rest) // an older ply's
	}
	n, err := strconv.Atoi(p)
	if err != nil || n <= 0 || !isLowerAlnum(random) {
		return 0, false
	}
	return n, true
}

// StaleTemp reports whether the temporary file name (IsTempName), last
// modified at mtime, was left by a writer that is gone: its process has
// ended, or, for a name without one, it is older than a day.
func StaleTemp(name string, mtime time.Time) bool {
	pid, ok := IsTempName(name)
	switch {
	case !ok:
		return false
	case pid == 0:
		return time.Since(mtime) > staleAge
	default:
		return processGone(pid)
	}
}

func isLowerAlnum(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
