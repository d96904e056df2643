package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// classifier holds what IsReadOnly and IsReadOnlyIn know about where a
// command runs.
type classifier struct {
	// roots are the workspace roots, absolute and cleaned; nil when the
	// caller gave none, and then every absolute path, ~ and .. is taken
	// to be outside.
	roots []string
	// cwd is the directory the command starts in (absolute), when roots
	// are known.
	cwd string
	// cd reports that the command changes directory somewhere, so that a
	// relative path may be relative to somewhere other than cwd.
	cd bool
	// cdDirs are the literal directories cd names, resolved from cwd: a
	// relative path must be inside from each of them too.
	cdDirs []string
	// cdSearch reports that cd may find a relative directory elsewhere
	// than under the working directory (cdSearches).
	cdSearch bool
}

// IsReadOnlyIn is IsReadOnly for a command run in directory cwd of a
// workspace with the given roots (cwd relative to roots[0] when not
// absolute; roots[0] when empty). On top of IsReadOnly's checks, every
// argument of a program that reads files, and every input redirection,
// must name a path inside one of the roots after following symbolic
// links: an absolute path elsewhere, a leading ~, a .. that climbs out, a
// glob whose fixed part is outside or that can match .., and a word whose
// value is known only at run time all make the command not read-only.
// cd must name a directory inside the roots, and git does not count as
// read-only after a cd or in a directory inside another repository of
// the workspace (a bare repository's config can run programs).
//
// Nothing under /proc, /sys or /dev but the null device and the standard
// streams may be read, whichever way a path gets there (a committed link,
// a root that lies there). A glob is expanded against the file system, as
// bash would from the working directory and from every directory the
// command cd's to, and each match is checked with its links followed. A
// relative cd operand is refused when CDPATH may be set (cdSearches).
//
// It looks at the file system (Lstat, Readlink, ReadDir) to follow links
// and expand globs; it runs nothing. Programs that never open their
// operands (echo, printf, basename, ...) are not path-checked. What
// changes between this check and the run (a link created meanwhile) is
// left to the kernel's read-only profile, the layer below.
func IsReadOnlyIn(command string, roots []string, cwd string) bool {
	cl := &classifier{}
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			cl.roots = append(cl.roots, filepath.Clean(abs))
		}
	}
	if len(cl.roots) == 0 {
		return false
	}
	switch {
	case cwd == "":
		cwd = cl.roots[0]
	case !filepath.IsAbs(cwd):
		cwd = filepath.Join(cl.roots[0], cwd)
	}
	cl.cwd = filepath.Clean(cwd)
	if !cl.insideFrom("", cl.cwd) {
		return false
	}
	return cl.classify(command)
}

func (cl *classifier) classify(command string) bool {
	f, err := parse(command)
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	if _, opaque := opaqueFile(f); opaque {
		return false
	}
	cl.cd, cl.cdDirs = changesDirectory(f)
	cl.cdSearch = cdSearches(command)
	if cl.cwd != "" {
		for i, d := range cl.cdDirs {
			if !filepath.IsAbs(d) {
				cl.cdDirs[i] = filepath.Join(cl.cwd, d)
			}
		}
	}
	return cl.stmtsReadOnly(f.Stmts)
}

// changesDirectory reports whether f runs cd, pushd or popd anywhere, and
// the operands of cd that are literal.
func changesDirectory(f *syntax.File) (cd bool, dirs []string) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			w := analyze(c.Args[0])
			if !w.exact || w.text == "cd" || w.text == "pushd" || w.text == "popd" {
				cd = true
			}
			if w.exact && w.text == "cd" {
				for _, a := range c.Args[1:] {
					if t := analyze(a); t.exact && !strings.HasPrefix(t.text, "-") {
						dirs = append(dirs, t.text)
					}
				}
			}
		}
		return true
	})
	return cd, dirs
}

// harmlessDevice reports whether p names the null device or a standard
// stream.
func harmlessDevice(p string) bool {
	switch filepath.Clean(p) {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2":
		return true
	}
	return false
}

// pathAllowed reports whether a program may read the path p: a harmless
// device, or a path inside the roots (relative paths from cwd) after
// following links. Other devices, /proc and /sys are never allowed: bash
// itself connects /dev/tcp/host/port, and /proc/self/environ holds the
// environment.
func (cl *classifier) pathAllowed(p string) bool {
	if p == "" || harmlessDevice(p) {
		return true
	}
	abs := filepath.IsAbs(p)
	if abs && kernelPath(filepath.Clean(p)) {
		return false
	}
	if cl.roots == nil {
		return !abs && !hasDotDot(p)
	}
	if cl.cd && !abs && hasDotDot(p) {
		return false
	}
	if abs {
		return cl.insideFrom("", p)
	}
	if !cl.insideFrom(cl.cwd, p) {
		return false
	}
	for _, d := range cl.cdDirs {
		if !cl.insideFrom(d, p) {
			return false
		}
	}
	return true
}

// insideFrom reports whether p, relative to dir, is inside the roots
// before and after following links, and under none of /proc, /sys and
// /dev (but for the harmless devices) either way: a committed link, or a
// root that lies there, must not reach /proc/self/environ.
func (cl *classifier) insideFrom(dir, p string) bool {
	full := filepath.Clean(filepath.Join(dir, p))
	real := resolveExisting(full)
	return cl.within(full) && cl.within(real) && !kernelPath(full) && !kernelPath(real)
}

// kernelPath reports whether the absolute path p lies under /proc, /sys
// or /dev and is not a harmless device.
func kernelPath(p string) bool {
	for _, special := range []string{"/dev", "/proc", "/sys"} {
		if p == special || strings.HasPrefix(p, special+"/") {
			return !harmlessDevice(p)
		}
	}
	return false
}

func (cl *classifier) within(p string) bool {
	for _, r := range cl.roots {
		if p == r || r == "/" || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

func hasDotDot(p string) bool {
	return slices.Contains(strings.Split(p, "/"), "..")
}

// resolveExisting follows the symbolic links of the longest existing
// prefix of the absolute path p and appends the rest.
func resolveExisting(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// Programs that never open their operands as files.
var noFileOperands = map[string]bool{
	"echo": true, "printf": true, "printenv": true, "true": true, "false": true, ":": true,
	"pwd": true, "whoami": true, "uname": true, "basename": true, "dirname": true,
	"which": true, "tr": true, "env": true,
}

// Options whose separate value is a pattern, a format or a delimiter,
// never a file.
var notPathValues = map[string][]string{
	"cut":   {"-d", "--delimiter"},
	"grep":  {"-e", "--regexp"},
	"egrep": {"-e", "--regexp"},
	"fgrep": {"-e", "--regexp"},
	"rg":    {"-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not"},
	"sed":   {"-e", "--expression"},
	"sort":  {"-t", "--field-separator", "-k", "--key"},
	"stat":  {"-c", "--format", "--printf"},
	"date":  {"-d", "--date"},
	"tree":  {"-P", "-I", "--charset"},
	"ls":    {"-I", "--ignore", "--hide"},
	"find": {"-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-wholename",
		"-iwholename", "-lname", "-ilname", "-perm", "-printf"},
}

// patternOptions are the options that give grep, rg or sed its pattern or
// script, so that the first operand is a file.
var patternOptions = map[string]string{"grep": "ef", "egrep": "ef", "fgrep": "ef", "rg": "ef", "sed": "ef"}

// argsInside reports whether the file operands of program name stay
// inside the roots.
func (cl *classifier) argsInside(name string, args []word, sws []*syntax.Word) bool {
	switch {
	case name == "cd":
		return cl.cdInside(args)
	case noFileOperands[name]:
		return true
	case name == "git" && (cl.cd || !cl.gitDirSafe()):
		return false
	case name == "sed" && !cl.sedFilesInside(args):
		return false
	}
	if followsLinks(name, args) {
		return false
	}
	skip := notPathValues[name]
	patternFirst := patternOptions[name] != "" && !hasPatternOption(name, args)
	options := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			if isProcSubst(sws[i]) {
				continue
			}
			if !a.globOnly || a.pathStart || !cl.globAllowed(a) {
				return false // a run-time value could be any path
			}
			patternFirst = false
			continue
		}
		t := a.text
		if options && t == "--" {
			options = false
			continue
		}
		if options && len(t) > 1 && t[0] == '-' {
			if !cl.optionInside(t, skip) {
				return false
			}
			if slices.Contains(skip, t) {
				i++ // its value is not a path
			}
			continue
		}
		if patternFirst {
			patternFirst = false
			continue
		}
		if !cl.pathAllowed(t) {
			return false
		}
	}
	return true
}

// sedFilesInside checks the files that sed's r and R commands read.
func (cl *classifier) sedFilesInside(args []word) bool {
	_, scripts, ok := sedScripts(args)
	if !ok {
		return false
	}
	files, ok := sedScriptFiles(strings.Join(scripts, "\n"))
	if !ok {
		return false
	}
	for _, f := range files {
		if !cl.pathAllowed(f) {
			return false
		}
	}
	return true
}

// optionInside checks a path attached to an option: --file=PATH, -fPATH.
func (cl *classifier) optionInside(t string, skip []string) bool {
	if strings.HasPrefix(t, "--") {
		name, value, ok := strings.Cut(t, "=")
		return !ok || slices.Contains(skip, name) || cl.pathAllowed(value)
	}
	if len(t) <= 2 || slices.Contains(skip, t[:2]) {
		return true
	}
	if i := strings.IndexAny(t[2:], "/~"); i >= 0 && len(t[2+i:]) > 1 {
		v := t[2+i:]
		if v[0] == '~' {
			return false
		}
		return cl.pathAllowed(v)
	}
	return true
}

// hasPatternOption reports whether grep, rg or sed got its pattern or
// script from an option; rg --files takes no pattern at all.
func hasPatternOption(name string, args []word) bool {
	letters := patternOptions[name]
	for _, a := range args {
		if !a.exact {
			continue
		}
		t := a.text
		if t == "--" {
			break
		}
		if name == "rg" && (t == "--files" || t == "--type-list") {
			return true
		}
		if l, ok := shortCluster(t); ok && strings.ContainsAny(l, letters) {
			return true
		}
		if hasAnyPrefix(t, "--regexp", "--file", "--expression") {
			return true
		}
	}
	return false
}

// globAllowed checks a word that is inexact only because of glob
// characters: its fixed directory must be inside, it must not be able to
// match .. (bash before 5.2 lets .* match it), and, when the roots are
// known, everything it matches on disk must be inside, links followed,
// from every directory the line may run it in.
func (cl *classifier) globAllowed(a word) bool {
	for _, part := range strings.Split(a.written, "/") {
		if part == ".." || (strings.HasPrefix(part, ".") && strings.ContainsAny(part, "*?[")) {
			return false
		}
	}
	if i := strings.LastIndexByte(a.text, '/'); i >= 0 && !cl.pathAllowed(a.text[:i+1]) {
		return false
	}
	if cl.roots == nil {
		return true
	}
	if !cl.globMatchesInside(cl.cwd, a) {
		return false
	}
	for _, d := range cl.cdDirs {
		if !cl.globMatchesInside(d, a) {
			return false
		}
	}
	return true
}

func isProcSubst(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	p, ok := w.Parts[0].(*syntax.ProcSubst)
	return ok && p.Op == syntax.CmdIn
}

// cdInside accepts cd with one known directory inside the roots: a bare
// cd, cd - (OLDPWD) and cd ~ go elsewhere, and so may a relative
// directory when CDPATH may be set.
func (cl *classifier) cdInside(args []word) bool {
	var dirs []string
	for _, a := range args {
		switch {
		case !a.exact:
			return false
		case a.text == "-P" || a.text == "-L" || a.text == "-e":
		case a.text == "-" || (strings.HasPrefix(a.text, "-") && a.text != "--"):
			return false
		case a.text == "--":
		default:
			dirs = append(dirs, a.text)
		}
	}
	if len(dirs) != 1 {
		return false
	}
	if cl.cdSearch && !skipsCDPATH(dirs[0]) {
		return false
	}
	return cl.pathAllowed(dirs[0])
}

// skipsCDPATH reports whether cd takes dir as it is, without looking it up
// in CDPATH: an absolute path, or one whose first component is . or ..
func skipsCDPATH(dir string) bool {
	first, _, _ := strings.Cut(dir, "/")
	return strings.HasPrefix(dir, "/") || first == "." || first == ".."
}

// cdSearches reports whether cd in command may look a relative directory
// up somewhere else: in CDPATH, which the environment or the line may set
// (ply's own children do not inherit it), or, with cdable_vars, in the
// variable of that name.
func cdSearches(command string) bool {
	_, inherited := os.LookupEnv("CDPATH")
	return inherited || strings.Contains(command, "CDPATH") ||
		strings.Contains(os.Getenv("BASHOPTS"), "cdable_vars")
}

// gitDirSafe reports that git run in cwd reads the workspace's own
// repository: no directory between cwd and its root is another one.
func (cl *classifier) gitDirSafe() bool {
	if cl.roots == nil {
		return true
	}
	for dir := cl.cwd; ; dir = filepath.Dir(dir) {
		if slices.Contains(cl.roots, dir) {
			return !InNestedRepository(cl.cwd, dir)
		}
		if dir == filepath.Dir(dir) {
			return true
		}
	}
}

// InNestedRepository reports whether a directory from dir up to root,
// root left out, is a git directory of its own (a committed bare
// repository, a .git) or holds a .git (a nested repository, a
// submodule): git run in dir would read that repository's
// configuration, which came with the files and can name programs.
func InNestedRepository(dir, root string) bool {
	for d := dir; d != root && d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" || looksLikeGitDir(d) {
			return true
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
	}
	return false
}

// looksLikeGitDir reports whether dir has what git needs to take it for a
// git directory: HEAD, objects and refs.
func looksLikeGitDir(dir string) bool {
	head, err := os.Stat(filepath.Join(dir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// linkFollowers are the options that make a program follow symbolic links
// met while walking a directory tree: a link committed to a repository
// can point anywhere. Links named on the command line are checked like
// any path; a program walking without following reads only the tree.
var linkFollowers = map[string]struct {
	short string
	long  []string
}{
	"grep":  {"R", []string{"--dereference-recursive"}},
	"egrep": {"R", []string{"--dereference-recursive"}},
	"fgrep": {"R", []string{"--dereference-recursive"}},
	"rg":    {"L", []string{"--follow"}},
	"tree":  {"l", nil},
	"du":    {"L", []string{"--dereference"}},
	"ls":    {"L", []string{"--dereference"}},
	"diff":  {"r", []string{"--recursive"}}, // diff follows links unless --no-dereference
	"find":  {"", []string{"-L", "-follow"}},
}

func followsLinks(name string, args []word) bool {
	f, ok := linkFollowers[name]
	if !ok {
		return false
	}
	for _, a := range args {
		if !a.exact {
			continue // hidden options are the checkers' business
		}
		if a.text == "--" {
			break
		}
		for _, l := range f.long {
			if a.text == l || (strings.HasPrefix(l, "--") && longOption(a.text, l[2:])) {
				return true
			}
		}
		if letters, ok := shortCluster(a.text); ok && f.short != "" && name != "find" && strings.ContainsAny(letters, f.short) {
			return true
		}
	}
	return false
}
