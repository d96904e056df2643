package permission

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/shell"
)

// lineDirs returns the directories the simple commands of a line may run
// in, for judging its parts one by one: the call's directory and, for a
// line with one cd to a literal directory inside the workspace, that
// directory too (a command after "cd x;" runs in either, should cd fail).
// Any other change of directory — a second one, pushd, popd, cd -, a
// sourced script or an eval — leaves the directory unknown: dirs is nil.
// changes reports whether the line changes directory at all.
func (p *Policy) lineDirs(ci *callInfo, cmds []shell.SimpleCommand) (dirs []string, changes bool) {
	callDir, ok := p.shellDir(ci)
	var cds []shell.SimpleCommand
	unknown := !ok
	for _, sc := range cmds {
		switch dirChange(sc) {
		case changeCd:
			cds = append(cds, sc)
		case changeUnknown:
			unknown = true
		}
	}
	switch {
	case unknown || len(cds) > 1:
		return nil, true
	case len(cds) == 0:
		return []string{callDir}, false
	}
	target, ok := cdTarget(cds[0].Args[1:])
	if !ok || !p.readOnlyAloneIn([]string{callDir}, shell.SimpleCommand{Args: []string{"cd", target}}) {
		return nil, true
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(callDir, target)
	}
	return []string{callDir, filepath.Clean(target)}, true
}

type change uint8

const (
	changeNone    change = iota
	changeCd             // cd, whose operand may be literal
	changeUnknown        // a change whose target is not known statically
)

// dirChange reports whether a simple command changes the shell's working
// directory, for the commands after it: cd (also as builtin cd or command
// cd), pushd and popd, and source, . and eval, which run shell code that
// may cd.
func dirChange(sc shell.SimpleCommand) change {
	args := sc.Args
	for len(args) > 0 && (args[0] == "builtin" || args[0] == "command") {
		args = args[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return changeNone
	}
	switch path.Base(args[0]) {
	case "cd":
		if len(args) == len(sc.Args) {
			return changeCd
		}
		return changeUnknown // builtin cd: the parts are not judged as cd
	case "pushd", "popd", "source", ".", "eval":
		return changeUnknown
	}
	return changeNone
}

// cdTarget returns the directory a cd names, when it names exactly one
// that the shell takes literally: not -, and without a tilde to expand.
func cdTarget(args []string) (string, bool) {
	var dirs []string
	for i, a := range args {
		switch {
		case a == "--":
			dirs = append(dirs, args[i+1:]...)
			return oneDir(dirs)
		case a == "-P" || a == "-L" || a == "-e" || a == "-@":
		case strings.HasPrefix(a, "-"):
			return "", false
		default:
			dirs = append(dirs, a)
		}
	}
	return oneDir(dirs)
}

func oneDir(dirs []string) (string, bool) {
	if len(dirs) != 1 || dirs[0] == "" || strings.Contains(dirs[0], "~") {
		return "", false
	}
	return dirs[0], true
}

// isGit reports whether a simple command runs git.
func isGit(sc shell.SimpleCommand) bool {
	return len(sc.Args) > 0 && path.Base(sc.Args[0]) == "git"
}

// otherRepo reports whether git run in dir would open a repository other
// than the workspace's: a directory between dir and its workspace root
// (root excluded) holds a .git of its own or is itself a git directory
// (a committed bare repository). Such a repository's configuration came
// with the files and can name programs git runs (diff.external, a
// pager, hooks), so a rule written for the user's repository does not
// cover it. dir is looked at as written and with links followed.
func (p *Policy) otherRepo(dir string) bool {
	candidates := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		candidates = append(candidates, real)
	}
	for _, d := range candidates {
		root, ok := p.rootOf(d)
		if !ok {
			return true // outside the workspace: not the user's repository
		}
		if shell.InNestedRepository(d, root) {
			return true
		}
	}
	return false
}

// rootOf returns the workspace root dir is in.
func (p *Policy) rootOf(dir string) (string, bool) {
	for _, r := range p.ws.Roots() {
		if _, ok := relWithin(r, dir); ok {
			return r, true
		}
	}
	return "", false
}
