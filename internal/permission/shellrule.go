package permission

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/plyhq/ply/internal/shell"
)

// shellPattern is a parsed shell rule: one pattern per word of a simple
// command.
type shellPattern struct {
	words []wordPattern
	// workspace limits the pattern to commands whose path operands are
	// all literal and inside the workspace (a leading @workspace).
	workspace bool
}

// wordPattern matches one word, or, when anyWords is set, any number of
// words (a lone * in the rule).
type wordPattern struct {
	anyWords bool
	// parts are the literal pieces between the in-word stars: "a*b*" is
	// ["a", "b", ""]. A word without stars has one part.
	parts []string
}

// parseShellPattern parses a shell rule's specifier. A trailing ":*" (as
// Claude writes a prefix) or, with legacyPrefix, the absence of any star,
// means the words may be followed by anything.
func parseShellPattern(spec string, legacyPrefix bool) (*shellPattern, error) {
	spec, scoped := cutWorkspaceScope(spec)
	if scoped && spec == "" {
		return nil, errors.New("nothing after " + workspaceScope)
	}
	prefix := false
	if body, ok := strings.CutSuffix(spec, ":*"); ok {
		spec, prefix = strings.TrimSpace(body), true
		if spec == "" {
			return nil, errors.New(`nothing before ":*"`)
		}
	}
	words, stars, err := splitPattern(spec)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, errors.New("empty command pattern")
	}
	last := words[len(words)-1]
	if prefix || (legacyPrefix && !stars) || (!last.anyWords && len(last.parts) > 1 && last.parts[len(last.parts)-1] == "") {
		words = append(words, wordPattern{anyWords: true})
	}
	// Adjacent "any words" are one; merging keeps matching linear.
	merged := words[:0]
	for _, w := range words {
		if w.anyWords && len(merged) > 0 && merged[len(merged)-1].anyWords {
			continue
		}
		merged = append(merged, w)
	}
	return &shellPattern{words: merged, workspace: scoped}, nil
}

// splitPattern splits a pattern into word patterns with the quoting rules
// of the shell: '...' is literal, "..." is literal but for \" \\ \$ \`,
// and a backslash escapes the next character. Only an unquoted * is a
// wildcard. stars reports whether there was one.
func splitPattern(s string) (words []wordPattern, stars bool, err error) {
	var (
		cur    strings.Builder
		parts  []string
		inWord bool
		quoted bool // the word has quoted parts, so it is never the lone * that stands for many words
	)
	end := func() {
		if !inWord {
			return
		}
		parts = append(parts, cur.String())
		if !quoted && strings.Join(parts, "") == "" && len(parts) > 1 { // * or **
			words = append(words, wordPattern{anyWords: true})
		} else {
			words = append(words, wordPattern{parts: parts})
		}
		cur.Reset()
		parts, inWord, quoted = nil, false, false
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\n':
			return nil, false, errors.New("a newline separates commands; write one rule per command")
		case unicode.IsSpace(c):
			end()
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, false, errors.New("unterminated single quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			inWord, quoted, i = true, true, j
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch {
				case rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]):
					j++
					cur.WriteRune(rs[j])
				case rs[j] == '$' || rs[j] == '`':
					return nil, false, fmt.Errorf("%q inside double quotes is an expansion; rules match literal words only", rs[j])
				default:
					cur.WriteRune(rs[j])
				}
			}
			if j == len(rs) {
				return nil, false, errors.New("unterminated double quote")
			}
			inWord, quoted, i = true, true, j
		case c == '\\':
			if i+1 == len(rs) {
				return nil, false, errors.New("backslash at the end")
			}
			i++
			cur.WriteRune(rs[i])
			inWord, quoted = true, true
		case c == '*':
			parts = append(parts, cur.String())
			cur.Reset()
			inWord, stars = true, true
		case strings.ContainsRune(";&|<>()`$", c):
			return nil, false, fmt.Errorf("%q is shell syntax: a rule describes one simple command, without operators, redirections or substitutions (quote it to mean the character)", c)
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	end()
	return words, stars, nil
}

// match reports whether w matches one word.
func (w *wordPattern) match(s string) bool {
	p := w.parts
	if len(p) == 1 {
		return s == p[0]
	}
	rest, ok := strings.CutPrefix(s, p[0])
	if !ok {
		return false
	}
	for _, mid := range p[1 : len(p)-1] {
		// Leftmost matching is enough when the only wildcard is *.
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return strings.HasSuffix(rest, p[len(p)-1])
}

// match reports whether the pattern matches the words of one simple
// command. It runs in time proportional to patterns × words, whatever the
// stars.
func (sp *shellPattern) match(words []string) bool {
	cur := make([]bool, len(words)+1) // cur[j]: the patterns so far match words[:j]
	next := make([]bool, len(words)+1)
	cur[0] = true
	for _, w := range sp.words {
		clear(next)
		if w.anyWords {
			reach := false
			for j := range cur {
				reach = reach || cur[j]
				next[j] = reach
			}
		} else {
			for j := 1; j <= len(words); j++ {
				next[j] = cur[j-1] && w.match(words[j-1])
			}
		}
		cur, next = next, cur
	}
	return cur[len(words)]
}

// quoteWord quotes w for a rule when it holds characters the rule parser
// would otherwise read as syntax.
func quoteWord(w string) string {
	if w != "" && !strings.ContainsFunc(w, func(c rune) bool {
		return unicode.IsSpace(c) || strings.ContainsRune("'\"\\*;&|<>()`$", c)
	}) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// commandWords returns the words a pattern is matched against: the
// assignments written before the command, then the command's words. An
// assignment such as GIT_DIR=x or LD_PRELOAD=y changes what the command
// does, so a rule that does not mention it must not cover it.
func commandWords(sc shell.SimpleCommand) []string {
	if len(sc.Env) == 0 {
		return sc.Args
	}
	return append(append(make([]string, 0, len(sc.Env)+len(sc.Args)), sc.Env...), sc.Args...)
}

// safeRedirects reports whether a simple command's redirections write no
// file: input, here-documents, descriptor duplication and /dev/null. An
// allow rule for a program is not a licence to write files with it.
// Redirections are as shell.SimpleCommand writes them: "2>&1", ">out".
func safeRedirects(redirs []string) bool {
	for _, r := range redirs {
		r = strings.TrimLeft(r, "0123456789")
		switch {
		case strings.HasPrefix(r, "<<"), strings.HasPrefix(r, "<&"):
			// here-document, here-string, input duplication
		case strings.HasPrefix(r, ">&"):
			// >&2 duplicates; >&file (no number) writes file and stderr
			if t := r[2:]; t != "-" && !isDigits(t) && t != "/dev/null" {
				return false
			}
		case strings.HasPrefix(r, "<") && !strings.HasPrefix(r, "<>"):
			// input from a file
		default:
			t, ok := cutOp(r, "&>>", "&>|", "&>", ">>", ">|", "<>", ">")
			if !ok || t != "/dev/null" {
				return false // unknown forms fail closed too
			}
		}
	}
	return true
}

// cutOp removes the first of ops that prefixes s.
func cutOp(s string, ops ...string) (string, bool) {
	for _, op := range ops {
		if t, ok := strings.CutPrefix(s, op); ok {
			return t, true
		}
	}
	return "", false
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// Programs that run the program named by a later argument. Deny and ask
// rules look past them: "sudo rm -rf /" is still rm.
var wrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "command": true, "builtin": true,
	"exec": true, "nohup": true, "nice": true, "ionice": true, "time": true,
	"timeout": true, "stdbuf": true, "xargs": true, "watch": true, "strace": true,
	"setsid": true, "chrt": true, "taskset": true, "unbuffer": true, "flock": true,
	"busybox": true, "toybox": true, "run0": true, "pkexec": true, "chroot": true, "unshare": true, "nsenter": true,
}

// Shells whose -c argument is itself a command line.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"yash": true, "posh": true, "rbash": true, "fish": true, "csh": true, "tcsh": true,
}

const (
	maxCatchDepth = 3    // nested wrapper, sh -c and eval levels looked into
	maxDerived    = 1024 // views found by looking into commands, per line
)

// catchViews returns word lists a deny or ask rule is tried against: every
// simple command as written, without its assignments and with its
// program's directory removed, and, as far as a budget allows, past
// wrappers and inside find -exec, sh -c and eval. When the line does not
// parse or has words known only at run time, it is split roughly instead,
// so that "rm -rf $HOME" is still caught by Bash(rm *). More views can only
// catch more, never allow more.
func catchViews(command string) (views [][]string, complete bool) {
	var v viewCollector
	v.line(command, maxCatchDepth, false)
	return v.views, !v.overflow
}

type viewCollector struct {
	views    [][]string
	derived  int
	overflow bool // a view was dropped for the budget
}

func (v *viewCollector) line(command string, depth int, derived bool) {
	if cmds, err := shell.SimpleCommands(command); err == nil {
		for _, sc := range cmds {
			if len(sc.Env) > 0 {
				v.add(commandWords(sc), depth, derived)
			}
			v.add(sc.Args, depth, derived)
		}
		return
	}
	for _, ws := range roughSplit(command) {
		v.add(ws, depth, derived)
	}
}

// add records ws and what it runs. Views of the line itself are never
// dropped, so that a long line cannot push a command out of sight; only
// views found inside commands count against the budget.
func (v *viewCollector) add(ws []string, depth int, derived bool) {
	if len(ws) == 0 {
		return
	}
	if derived {
		if v.derived >= maxDerived {
			v.overflow = true
			return
		}
		v.derived++
	}
	v.views = append(v.views, ws)
	prog := path.Base(ws[0])
	if prog != ws[0] {
		v.views = append(v.views, append([]string{prog}, ws[1:]...))
	}
	if depth <= 0 {
		return
	}
	switch {
	case wrappers[prog]:
		// Every position: options with values can push the program far
		// along, and the budget makes a flood of views fail closed.
		for i := 1; i < len(ws); i++ {
			v.add(ws[i:], depth-1, true)
		}
	case prog == "find":
		for i, w := range ws {
			if w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir" {
				v.add(ws[i+1:], depth-1, true)
			}
		}
	case prog == "eval":
		v.line(strings.Join(ws[1:], " "), depth-1, true)
	case prog == "trap" && len(ws) > 2:
		if ws[1] == "--" && len(ws) > 3 {
			v.line(ws[2], depth-1, true)
		} else {
			v.line(ws[1], depth-1, true)
		}
	case shells[prog]:
		if script, ok := shellScript(ws[1:]); ok {
			v.line(script, depth-1, true)
		}
	}
	if prog == "env" {
		for i := 1; i < len(ws); i++ {
			switch a := ws[i]; {
			case (a == "-S" || a == "--split-string") && i+1 < len(ws):
				v.line(ws[i+1], depth-1, true)
			case strings.HasPrefix(a, "--split-string="):
				v.line(strings.TrimPrefix(a, "--split-string="), depth-1, true)
			case strings.HasPrefix(a, "-S") && len(a) > 2:
				v.line(a[2:], depth-1, true)
			}
		}
	}
}

// shellScript returns the script of a shell's -c: the first operand after
// the options, wherever -c is among them.
func shellScript(args []string) (string, bool) {
	cmd := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			if cmd && i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			cmd = cmd || (a[0] == '-' && strings.Contains(a, "c"))
			i += strings.Count(a, "o") + strings.Count(a, "O")
		default:
			return a, cmd
		}
	}
	return "", false
}

// roughSplit cuts a command line that the parser could not take literally
// into word lists at every character that can separate or nest commands,
// and drops quotes and backslashes from the words. It is only ever used to
// catch more.
func roughSplit(command string) [][]string {
	var out [][]string
	seps := func(c rune) bool { return strings.ContainsRune(";&|\n(){}`<>", c) }
	for _, seg := range strings.FieldsFunc(command, seps) {
		var ws []string
		for _, f := range strings.Fields(seg) {
			if f = strings.Map(func(c rune) rune {
				if c == '\'' || c == '"' || c == '\\' {
					return -1
				}
				return c
			}, f); f != "" {
				ws = append(ws, f)
			}
		}
		if len(ws) > 0 {
			out = append(out, ws)
		}
	}
	return out
}

// Programs whose first argument is a subcommand, so that "allow always"
// for "git status -s" allows git status, not all of git.
var subcommandPrograms = map[string]bool{
	"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "bun": true,
	"deno": true, "cargo": true, "rustup": true, "docker": true, "podman": true,
	"kubectl": true, "helm": true, "gh": true, "terraform": true, "dotnet": true,
	"pip": true, "pip3": true, "uv": true, "poetry": true, "bundle": true,
	"mvn": true, "gradle": true, "systemctl": true, "brew": true, "apt": true,
	"make": true, "just": true, "npx": true, "pnpx": true, "bunx": true,
}

// Subcommands followed by the name of what they run: "npm run test".
var runSubcommands = map[string]bool{"run": true, "run-script": true, "exec": true, "x": true, "compose": true}

// sessionPrefix returns the leading words an "allow always" of sc should
// cover: its assignments, its program and, for programs with subcommands,
// the subcommand (and the script a run subcommand names).
func sessionPrefix(sc shell.SimpleCommand) []string {
	n := 1
	if subcommandPrograms[sc.Args[0]] && len(sc.Args) > 1 && isSubcommand(sc.Args[1]) {
		n = 2
		if runSubcommands[sc.Args[1]] && len(sc.Args) > 2 && isSubcommand(sc.Args[2]) {
			n = 3
		}
	}
	return append(append([]string(nil), sc.Env...), sc.Args[:n]...)
}

// isSubcommand reports whether w looks like a subcommand or script name,
// not an option, a path or a value.
func isSubcommand(w string) bool {
	if w == "" || !(w[0] >= 'a' && w[0] <= 'z') {
		return false
	}
	return strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789-_:.") == "" && !strings.Contains(w, "..")
}
