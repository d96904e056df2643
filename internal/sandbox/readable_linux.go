package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A read-only command reads only what it needs to run and what its task
// is about: programs and libraries, the world-readable part of /etc, its
// own process's files, the workspace (Policy.ReadableDirs) and the user's
// git configuration. Not the rest of the home directory, where keys and
// tokens live (~/.ssh, ~/.aws, ~/.config), nor other projects or ply's
// own state.

// systemDirs hold programs, libraries and the data they ship.
var systemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
	"/nix/store", "/snap", "/home/linuxbrew/.linuxbrew",
}

// kernelDirs are the parts of /proc and /sys programs read about
// themselves and the machine (CPUs, memory, cgroup limits). Other
// processes' private files in /proc stay closed: Landlock keeps a
// sandboxed process from inspecting processes outside its sandbox, and
// without CAP_SYS_PTRACE it cannot inspect non-dumpable ones (ply) at all.
var kernelDirs = []string{
	"/proc", "/sys/devices/system/cpu", "/sys/devices/system/node", "/sys/fs/cgroup",
	"/sys/kernel/mm/transparent_hugepage",
}

// etcLimit bounds the walk of /etc; past it, what was not reached stays
// unreadable.
const etcLimit = 20000

// etcReadable lists the files and directories under /etc that every user
// may read, found once: directories whose whole tree is world-readable
// are listed whole, others are split into their entries. Root owns the
// files that hold /etc's secrets (/etc/shadow, private keys) and would
// read them as their owner even without capabilities; what only root or
// a group may read is left out for everyone.
var etcReadable = sync.OnceValue(func() (r readableSet) {
	budget := etcLimit
	r.walk("/etc", &budget)
	return r
})

// readableSet is a list of directories and of files: Landlock grants
// directory rights on directories only.
type readableSet struct{ dirs, files []string }

// walk adds dir, or the world-readable parts of it, and reports whether
// all of it was world-readable.
func (r *readableSet) walk(dir string, budget *int) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	var sub readableSet
	whole := true
	for _, e := range entries {
		if *budget--; *budget < 0 {
			return false
		}
		p := filepath.Join(dir, e.Name())
		info, err := os.Stat(p) // a link's target: that is what is read
		switch {
		case err != nil || !worldReadable(info):
			whole = false
		case e.Type()&fs.ModeSymlink != 0:
			// A link to a file is granted as its target; one to a
			// directory could lead anywhere and is left to its
			// target's own rule.
			if info.Mode().IsRegular() {
				sub.files = append(sub.files, p)
			} else {
				whole = false
			}
		case info.IsDir():
			if !sub.walk(p, budget) {
				whole = false
			}
		case info.Mode().IsRegular():
			sub.files = append(sub.files, p)
		default:
			whole = false // sockets, pipes, devices
		}
	}
	if whole {
		r.dirs = append(r.dirs, dir)
		return true
	}
	r.dirs = append(r.dirs, sub.dirs...)
	r.files = append(r.files, sub.files...)
	return false
}

// worldReadable reports whether others may read the file, and for a
// directory also search it.
func worldReadable(info fs.FileInfo) bool {
	m := info.Mode().Perm()
	if info.IsDir() {
		return m&0o005 == 0o005
	}
	return m&0o004 != 0
}

// userReadable returns the readable files and directories a read-only
// command gets from its environment env: the directories of its PATH,
// where the programs it runs live, and the user's git configuration
// files. A PATH entry that is the home directory, an ancestor of it or
// the root is left out: it would open the secrets this profile keeps.
func userReadable(env []string) (r readableSet) {
	// The last of duplicate entries wins, as when os/exec starts the
	// command.
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	home := filepath.Clean(get("HOME"))
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil {
		realHome = home
	}
	var paths []string
	for _, d := range filepath.SplitList(get("PATH")) {
		d = filepath.Clean(d)
		if !filepath.IsAbs(d) {
			continue
		}
		// The rule follows links: judge where the entry leads.
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue // missing: nothing to read
		}
		if d != "/" && real != "/" && !within(d, home) && !within(real, realHome) {
			paths = append(paths, d)
		}
	}
	if filepath.IsAbs(home) {
		xdg := get("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(home, ".config")
		}
		paths = append(paths, filepath.Join(home, ".gitconfig"),
			filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "ignore"), filepath.Join(xdg, "git", "attributes"))
	}
	if g := get("GIT_CONFIG_GLOBAL"); filepath.IsAbs(g) {
		paths = append(paths, g)
	}
	r.add(paths...)
	r.add(gitIncludes(r.files, home)...)
	return r
}

// add sorts existing paths into directories and files.
func (r *readableSet) add(paths ...string) {
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case err != nil:
		case info.IsDir():
			r.dirs = append(r.dirs, p)
		case info.Mode().IsRegular():
			r.files = append(r.files, p)
		}
	}
}

// within reports whether dir is path or one of its ancestors.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// readOnlySet is what a read-only command may read (and execute), given
// its environment env, besides its temporary directory and the sinks.
func readOnlySet(p Policy, env []string) readableSet {
	r := userReadable(env)
	r.add(p.ReadableDirs...)
	r.dirs = append(r.dirs, systemDirs...)
	r.dirs = append(r.dirs, kernelDirs...)
	if os.Geteuid() != 0 {
		// Only root, even without capabilities, owns and so reads /etc's
		// private files; any other user is kept from them by their
		// permissions, and one rule is cheaper than a hundred.
		r.dirs = append(r.dirs, "/etc")
		return r
	}
	etc := etcReadable()
	r.dirs = append(r.dirs, etc.dirs...)
	r.files = append(r.files, etc.files...)
	return r
}
