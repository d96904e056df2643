package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plyhq/ply/internal/shell"
)

// maxWalk bounds the entries looked at below the directories a command
// searches recursively; past it, the directory is taken to hold a
// protected path.
const maxWalk = 10000

// maxGlob bounds the files one glob operand is expanded to.
const maxGlob = 1000

// operand is a word of a shell command that may name a file.
type operand struct {
	word      string
	recursive bool // the program reads below it when it is a directory
	certain   bool // the word is the program's operand for sure, not a rough split
}

// pathHit is a path rule that a command's operands reach.
type pathHit struct {
	rule    sourced
	deny    bool
	certain bool   // an operand names a protected path itself
	what    string // for the reason
}

// shellPaths applies the path rules (Read(.env), Edit(/src/**), ...) to
// the operands of a shell command, so that a file a rule keeps from the
// file tools is not read or written with cat, sed or grep -r instead. An
// operand that names a path under a deny rule, as written or after
// following links or expanding a glob, is denied; one under an ask rule,
// a directory searched recursively that holds such a path, or an operand
// known only at run time, asks. ok is false when no path rule concerns
// the call.
func (p *Policy) shellPaths(ci *callInfo) (d decision, ok bool) {
	if ci.name != ToolShell {
		return decision{}, false
	}
	rules := p.shellPathRules()
	if len(rules) == 0 {
		return decision{}, false
	}
	if !ci.argsOK {
		return ask("the command's arguments did not decode, and rule %s protects paths", rules[0].rule), true
	}
	if p.shellReadOnly(ci) {
		// Reading cannot break a rule about writing.
		rules = readRules(rules)
		if len(rules) == 0 {
			return decision{}, false
		}
	}
	ops, dirs, known := p.shellOperands(ci)
	if hit, found := p.operandHits(rules, ops, dirs); found {
		if hit.deny && hit.certain {
			return deny("denied by rule %s: the command names %s, a path the rule protects", hit.rule, hit.what), true
		}
		return ask("rule %s protects %s, which the command may read or write: it needs the user's approval", hit.rule, hit.what), true
	}
	if !known {
		return ask("the command names files known only at run time (a variable, a substitution, xargs, a change of directory), and rule %s protects paths: it needs the user's approval", rules[0].rule), true
	}
	return decision{}, false
}

// shellPathRules returns the deny and ask rules with a path.
func (p *Policy) shellPathRules() []sourced {
	var out []sourced
	for _, s := range p.deny {
		if s.rule.kind == specPath {
			out = append(out, s)
		}
	}
	for _, s := range p.ask {
		if s.rule.kind == specPath {
			out = append(out, s)
		}
	}
	return out
}

func readRules(rules []sourced) []sourced {
	var out []sourced
	for _, s := range rules {
		if families[s.rule.tool] == "read" {
			out = append(out, s)
		}
	}
	return out
}

// shellOperands returns the words of a command that may name files, the
// directories relative ones are relative to, and whether every such word
// is known statically (known is false when dirs is unknown, too).
func (p *Policy) shellOperands(ci *callInfo) (ops []operand, dirs []string, known bool) {
	command := ci.args.Command
	known = shell.OperandsKnown(command) && ci.shellInfo().opaque == ""
	cmds, err := shell.SimpleCommands(command)
	if err != nil {
		// Rough views: every word may be a path, and none certainly is.
		// A change of directory leaves relative words unresolved.
		for _, v := range ci.shellInfo().views {
			if dirChange(shell.SimpleCommand{Args: v}) != changeNone {
				known = false
			}
			for _, w := range v {
				ops = append(ops, operand{word: w, recursive: true})
			}
		}
		if dir, ok := p.shellDir(ci); ok {
			dirs = []string{dir}
		}
		return ops, dirs, known
	}
	dirs, _ = p.lineDirs(ci, cmds)
	for _, v := range ci.shellInfo().views {
		search := shell.Searches(v)
		words := shell.PathOperands(v)
		for _, w := range words {
			ops = append(ops, operand{word: w, recursive: search.Recursive, certain: true})
		}
		if search.WorkingDir {
			ops = append(ops, operand{word: ".", recursive: true, certain: true})
		}
	}
	for _, sc := range cmds {
		for _, r := range sc.Redirects {
			if t, ok := redirectTarget(r); ok {
				ops = append(ops, operand{word: t, certain: true})
			}
		}
	}
	return ops, dirs, known && dirs != nil
}

// redirectTarget returns the file a redirection, as SimpleCommand writes
// it, opens: none for here-documents and descriptor duplication.
func redirectTarget(r string) (string, bool) {
	r = strings.TrimLeft(r, "0123456789")
	if strings.HasPrefix(r, "<<") {
		return "", false
	}
	t, ok := cutOp(r, "&>>", "&>|", "&>", ">>", ">|", "<>", ">&", "<&", ">", "<")
	if !ok || t == "" || t == "-" || isDigits(t) {
		return "", false
	}
	return t, true
}

// operandHits returns the first hit of rules among ops: a certain deny
// first, else any.
func (p *Policy) operandHits(rules []sourced, ops []operand, dirs []string) (pathHit, bool) {
	var first *pathHit
	note := func(h pathHit) bool {
		if h.deny && h.certain {
			first = &h
			return true
		}
		if first == nil {
			first = &h
		}
		return false
	}
	for _, op := range ops {
		for _, c := range p.operandPaths(op.word, dirs) {
			rp := p.resolvePath(c)
			for _, s := range rules {
				if p.matchPath(s.rule.path, rp.lexical) || (rp.real != "" && p.matchPath(s.rule.path, rp.real)) {
					if note(pathHit{rule: s, deny: p.isDeny(s), certain: op.certain, what: op.word}) {
						return *first, true
					}
				}
			}
			if op.recursive && first == nil {
				if s, ok := p.dirHolds(rules, rp); ok {
					note(pathHit{rule: s, what: op.word + " (searched below)"})
				}
			}
		}
	}
	if first == nil {
		return pathHit{}, false
	}
	return *first, true
}

// isDeny reports whether s is one of the policy's deny rules.
func (p *Policy) isDeny(s sourced) bool {
	for _, d := range p.deny {
		if d.rule.text == s.rule.text && d.source == s.source {
			return true
		}
	}
	return false
}

// operandPaths returns the absolute paths a word may name: relative to
// each of dirs, with a leading ~ expanded to the home directory, and a
// glob expanded as well as taken literally. A relative word with no
// known directory gives the workspace root, where rules still look.
func (p *Policy) operandPaths(w string, dirs []string) []string {
	var bases []string
	switch {
	case w == "~" || strings.HasPrefix(w, "~/"):
		for _, h := range p.homes {
			bases = append(bases, filepath.Join(h, strings.TrimPrefix(w, "~")))
		}
	case filepath.IsAbs(w):
		bases = []string{filepath.Clean(w)}
	default:
		if len(dirs) == 0 {
			dirs = []string{p.ws.Root()}
		}
		for _, d := range dirs {
			bases = append(bases, filepath.Join(d, w))
		}
	}
	if !strings.ContainsAny(w, "*?[") {
		return bases
	}
	out := bases
	for _, b := range bases {
		matches, err := filepath.Glob(b)
		if err != nil {
			continue
		}
		if len(matches) > maxGlob {
			matches = matches[:maxGlob]
		}
		out = append(out, matches...)
	}
	return out
}

// errFound stops a walk.
var errFound = errors.New("found")

// dirHolds returns a rule that matches something below the directory rp
// (when it is one): a file or link there, or the target of a link there.
// Only rules whose pattern can match below it are walked for, and a walk
// past maxWalk entries counts as a match.
func (p *Policy) dirHolds(rules []sourced, rp resolvedPath) (sourced, bool) {
	dir := rp.real
	if dir == "" {
		dir = rp.lexical
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return sourced{}, false
	}
	var maybe []sourced
	for _, s := range rules {
		if p.holdsAnchor(s.rule.path, dir) || p.holdsAnchor(s.rule.path, rp.lexical) {
			return s, true // a search of the workspace's parent, of /, of ~ ...
		}
		if p.mayMatchBelow(s.rule.path, dir) || (rp.lexical != dir && p.mayMatchBelow(s.rule.path, rp.lexical)) {
			maybe = append(maybe, s)
		}
	}
	if len(maybe) == 0 {
		return sourced{}, false
	}
	var found sourced
	n := 0
	err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if n++; n > maxWalk {
			found = maybe[0]
			return errFound
		}
		if err != nil || path == dir {
			return nil // unreadable: the program cannot read it either
		}
		names := []string{path}
		if rel, err := filepath.Rel(dir, path); err == nil && rp.lexical != dir {
			names = append(names, filepath.Join(rp.lexical, rel))
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if real, err := followLinks(path); err == nil {
				names = append(names, real)
			}
		}
		for _, s := range maybe {
			for _, name := range names {
				if p.matchPath(s.rule.path, name) {
					found = s
					return errFound
				}
			}
		}
		return nil
	})
	return found, errors.Is(err, errFound)
}

// anchors returns the directories a pattern is relative to.
func (p *Policy) anchors(pp *pathPattern) []string {
	switch pp.anchor {
	case anchorHome:
		return p.homes
	case anchorFS:
		return []string{"/"}
	}
	return p.ws.Roots()
}

// holdsAnchor reports whether dir is strictly above one of the pattern's
// anchors: a search there is not walked but taken to reach the pattern.
func (p *Policy) holdsAnchor(pp *pathPattern, dir string) bool {
	for _, a := range p.anchors(pp) {
		if rel, ok := relWithin(dir, a); ok && rel != "" {
			return true
		}
	}
	return false
}

// mayMatchBelow reports whether the pattern may match a path below dir:
// it is decided segment by segment against dir's path from each anchor,
// and a ** or a pattern that already matched above says yes.
func (p *Policy) mayMatchBelow(pp *pathPattern, dir string) bool {
	anchors := p.anchors(pp)
	glob := pp.glob
	if foldCase {
		glob, dir = strings.ToLower(glob), strings.ToLower(dir)
	}
	segs := strings.Split(glob, "/")
	for _, a := range anchors {
		if foldCase {
			a = strings.ToLower(a)
		}
		if _, ok := relWithin(dir, a); ok {
			return true // the anchor is at or below dir
		}
		rel, ok := relWithin(a, dir)
		if !ok {
			continue
		}
		if prefixMayMatch(segs, strings.Split(rel, "/")) {
			return true
		}
	}
	return false
}

// prefixMayMatch reports whether a pattern's segments may match a path
// that starts with the segments of rel.
func prefixMayMatch(pat, rel []string) bool {
	for i, r := range rel {
		if i >= len(pat) {
			return true // the pattern matched an ancestor: all below it
		}
		if strings.Contains(pat[i], "**") {
			return true
		}
		if ok, err := doublestar.Match(pat[i], r); err != nil || !ok {
			return false
		}
	}
	return true
}
