package shell

import (
	"errors"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxOpaqueDepth bounds how deep Opaque looks into wrappers and sh -c,
// eval and trap strings; a wrapper or string deeper is opaque. It matches
// the depth to which permission rules look into commands, so that what
// they cannot see is opaque.
const maxOpaqueDepth = 3

// Opaque reports whether command may run a program that cannot be named
// without running the command, with a short reason for the user. That is
// the case when a program name is known only at run time (a parameter,
// command or arithmetic substitution, $IFS, a glob or brace expansion in
// the name); for coproc; for eval, trap, sh -c and env -S given a string
// known only at run time (a literal string is looked into); for a shell
// that reads its script from standard input (a pipe, a here-string, a
// here-document, a redirection) or from a process substitution; for source
// and . of anything but a plain file; for alias, hash -p, enable -f and
// mapfile -C; for arithmetic that reads a variable, ${!x}, ${x@P} and array
// subscripts with names, because bash evaluates a subscript held in a
// variable, command substitutions included; and for wrappers (sudo, env,
// xargs, exec, ...) whose arguments are not all literal. It is opaque
// too for every construct other than a plain NAME=value word that assigns
// a variable not provably harmless (assign.go): a for or select loop,
// read, mapfile, getopts, printf -v, wait -p, declare and its kin, export,
// ${x:=y}, {x}>file, unset; and for set and shopt options that change how
// later commands run or expand (set -a, set -k, shopt -s ...), and enable.
// A plain assignment is visible to the rules instead, as part of the
// simple command it is written in. A command that does not parse, or that
// exceeds the size and nesting limits (limits.go), is opaque too.
//
// Permission rules use it to fail closed: every deny or ask rule on the
// shell tool catches an opaque command, and no allow rule covers it.
// Programs run from a script file (sh build.sh, ./x) are not opaque: the
// rules are about the command line.
func Opaque(command string) (reason string, opaque bool) {
	f, err := parse(command)
	if le := (*limitError)(nil); errors.As(err, &le) {
		return le.detail, true
	}
	if err != nil {
		return parseFailure(err), true
	}
	return opaqueFile(f)
}

// maxOpaqueCommands bounds how many word lists Opaque looks at for one
// command line, past wrappers; beyond it the command is opaque.
const maxOpaqueCommands = 1024

// opaqueWalk counts the word lists looked at.
type opaqueWalk struct{ n int }

// opaqueFile is Opaque for a parsed command line.
func opaqueFile(f *syntax.File) (string, bool) {
	return (&opaqueWalk{}).opaqueFile(f, maxOpaqueDepth)
}

func (ow *opaqueWalk) opaqueLine(command string, depth int) (string, bool) {
	f, err := parse(command)
	if le := (*limitError)(nil); errors.As(err, &le) {
		return "a command string: " + le.detail, true
	}
	if err != nil {
		return "a command string that does not parse", true
	}
	return ow.opaqueFile(f, depth)
}

func (ow *opaqueWalk) opaqueFile(f *syntax.File, depth int) (reason string, opaque bool) {
	found := func(r string) bool {
		reason, opaque = r, true
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if opaque {
			return false
		}
		switch x := n.(type) {
		case *syntax.CallExpr:
			for _, as := range x.Assigns {
				if r, ok := assignOpaque(as); ok {
					return found(r)
				}
			}
			if len(x.Args) > 0 {
				if r, ok := ow.callOpaque(x.Args, depth); ok {
					return found(r)
				}
			}
		case *syntax.CoprocClause:
			return found("coproc runs a command in the background")
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
			if hasName(x) {
				return found("arithmetic reads a variable, which may hold a command substitution in a subscript")
			}
		case *syntax.ParamExp:
			if r, ok := paramOpaque(x); ok {
				return found(r)
			}
			if r, ok := assignNodeOpaque(x); ok {
				return found(r)
			}
		case *syntax.ForClause, *syntax.Redirect, *syntax.DeclClause:
			if r, ok := assignNodeOpaque(x); ok {
				return found(r)
			}
		case *syntax.TestClause:
			if r, ok := testOpaque(x.X); ok {
				return found(r)
			}
		}
		return true
	})
	return reason, opaque
}

// hasName reports whether an arithmetic node reads anything but integer
// constants.
func hasName(n syntax.Node) bool {
	named := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Lit:
			if !isDigits(x.Value) {
				named = true
			}
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst:
			named = true
		}
		return !named
	})
	return named
}

func paramOpaque(p *syntax.ParamExp) (string, bool) {
	switch {
	case p.Excl:
		return "${!name} reads a variable named at run time", true
	case p.Index != nil && !isAllIndex(p.Index) && hasName(p.Index):
		return "an array subscript reads a variable", true
	case p.Slice != nil && (hasName(p.Slice.Offset) || (p.Slice.Length != nil && hasName(p.Slice.Length))):
		return "a substring offset reads a variable", true
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps:
		return "${name@op} can expand a prompt string, command substitutions included", true
	}
	return "", false
}

func isAllIndex(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	t := analyze(w)
	return t.exact && (t.text == "@" || t.text == "*")
}

func testOpaque(e syntax.TestExpr) (string, bool) {
	switch x := e.(type) {
	case *syntax.ParenTest:
		return testOpaque(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if w, ok := x.X.(*syntax.Word); !ok || !plainName(analyze(w)) {
				return "[[ -v ]] evaluates an array subscript", true
			}
		}
		return testOpaque(x.X)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !isIntegerWord(x.X) || !isIntegerWord(x.Y) {
				return "[[ ]] compares as arithmetic, which may evaluate a subscript held in a variable", true
			}
		}
		if r, ok := testOpaque(x.X); ok {
			return r, ok
		}
		return testOpaque(x.Y)
	}
	return "", false
}

// plainName reports a word that is a variable name without a subscript.
func plainName(w word) bool {
	return w.exact && w.text != "" && !strings.ContainsAny(w.text, "[]$`")
}

// Variables whose value the shell itself runs or expands as a prompt.
var codeVariables = map[string]bool{
	"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true,
	"PROMPT_COMMAND": true, "BASH_ENV": true, "ENV": true,
}

func assignOpaque(as *syntax.Assign) (string, bool) {
	if as.Name != nil && codeVariables[as.Name.Value] {
		return as.Name.Value + " holds code the shell runs", true
	}
	return "", false
}

// wrapperPrograms run the program named by a later argument.
var wrapperPrograms = map[string]bool{
	"sudo": true, "doas": true, "env": true, "command": true, "builtin": true,
	"exec": true, "nohup": true, "nice": true, "ionice": true, "time": true,
	"timeout": true, "stdbuf": true, "xargs": true, "watch": true, "strace": true,
	"setsid": true, "chrt": true, "taskset": true, "unbuffer": true, "flock": true,
	"busybox": true, "toybox": true, "run0": true, "pkexec": true, "chroot": true, "unshare": true, "nsenter": true,
}

// shellPrograms read a script from -c, a file or standard input.
var shellPrograms = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"yash": true, "posh": true, "rbash": true, "fish": true, "csh": true, "tcsh": true,
}

func (ow *opaqueWalk) callOpaque(sws []*syntax.Word, depth int) (string, bool) {
	ws := make([]word, len(sws))
	for i, w := range sws {
		ws[i] = analyze(w)
	}
	return ow.wordsOpaque(ws, depth)
}

func (ow *opaqueWalk) wordsOpaque(ws []word, depth int) (string, bool) {
	if ow.n++; ow.n > maxOpaqueCommands {
		return "too many commands nested in wrappers to look into", true
	}
	if !ws[0].exact {
		return "the program's name is known only at run time", true
	}
	name := path.Base(ws[0].text)
	args := ws[1:]
	allExact := !slices.ContainsFunc(args, func(w word) bool { return !w.exact })
	nests := wrapperPrograms[name] || shellPrograms[name] || name == "eval" || name == "trap"
	if nests && depth <= 0 && len(args) > 0 {
		return "commands nested too deeply to look into", true
	}
	switch {
	case name == "xargs":
		return ow.xargsOpaque(args, depth)
	case name == "find":
		for i, a := range args {
			if a.exact && (a.text == "-exec" || a.text == "-execdir" || a.text == "-ok" || a.text == "-okdir") && i+1 < len(args) {
				if r, ok := ow.wordsOpaque(args[i+1:], depth-1); ok {
					return r, ok
				}
			}
		}
	case wrapperPrograms[name]:
		for i := range args {
			if !args[i].exact {
				return name + " runs a program given by a word known only at run time", true
			}
		}
		for i := range args {
			if r, ok := ow.wordsOpaque(args[i:], depth-1); ok {
				return r, ok
			}
			if name == "env" && (args[i].text == "-S" || args[i].text == "--split-string") && i+1 < len(args) {
				if r, ok := ow.opaqueLine(args[i+1].text, depth-1); ok {
					return r, ok
				}
			}
		}
	case shellPrograms[name]:
		return ow.shellOpaque(name, args, depth)
	case name == "eval":
		if !allExact {
			return "eval runs a string known only at run time", true
		}
		texts := make([]string, len(args))
		for i, a := range args {
			texts[i] = a.text
		}
		return ow.opaqueLine(strings.Join(texts, " "), depth-1)
	case name == "trap":
		if len(args) > 0 && args[0].exact && args[0].text == "--" {
			args = args[1:]
		}
		if len(args) > 0 && !args[0].exact {
			return "trap runs a string known only at run time", true
		}
		if len(args) > 1 && !strings.HasPrefix(args[0].text, "-") {
			return ow.opaqueLine(args[0].text, depth-1)
		}
	case name == "source" || name == ".":
		if len(args) == 0 || !args[0].exact || specialFile(args[0].text) {
			return name + " reads commands from a stream or a name known only at run time", true
		}
	case name == "alias" && slices.ContainsFunc(args, func(w word) bool { return !w.exact || strings.Contains(w.text, "=") }):
		return "alias defines a command name", true
	case name == "hash" && slices.ContainsFunc(args, func(w word) bool { return !w.exact || strings.HasPrefix(w.text, "-p") }):
		return "hash -p gives a command name another program", true
	case name == "enable" && slices.ContainsFunc(args, func(w word) bool { return !w.exact || strings.HasPrefix(w.text, "-f") }):
		return "enable -f loads a builtin", true
	case (name == "mapfile" || name == "readarray") && slices.ContainsFunc(args, func(w word) bool {
		return !w.exact || (strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "C"))
	}):
		return name + " -C runs a callback", true
	case name == "test" || name == "[":
		for i := 0; i+1 < len(args); i++ {
			t := args[i].text
			if args[i].exact && (t == "-v" || t == "-R") && !plainName(args[i+1]) {
				return name + " " + t + " of a name known only at run time or with a subscript", true
			}
		}
	}
	if r, ok, found := builtinAssignOpaque(name, args); found {
		return r, ok
	}
	return "", false
}

// specialFile reports a path that is a stream rather than a file.
func specialFile(p string) bool {
	p = path.Clean(p)
	return p == "-" || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/")
}

// shellOpaque decides a shell's invocation: -c with a literal script is
// looked into; a script file is not; anything read from standard input
// or a stream is opaque.
func (ow *opaqueWalk) shellOpaque(name string, args []word, depth int) (string, bool) {
	cmdMode, stdinMode := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return name + " runs a script or option known only at run time", true
		}
		t := a.text
		switch {
		case t == "--" || t == "-":
			i++
		case strings.HasPrefix(t, "--"):
			if t == "--rcfile" || t == "--init-file" {
				i++
			}
			continue
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			if t[0] == '-' {
				cmdMode = cmdMode || strings.Contains(t, "c")
				stdinMode = stdinMode || strings.Contains(t, "s")
			}
			i += strings.Count(t, "o") + strings.Count(t, "O")
			continue
		}
		if i >= len(args) {
			break
		}
		a = args[i]
		switch {
		case !a.exact:
			return name + " runs a script known only at run time", true
		case cmdMode && strings.Contains(a.text, "{}"):
			return name + " -c runs a script that find or xargs fills in", true
		case cmdMode:
			return ow.opaqueLine(a.text, depth-1)
		case stdinMode:
			return name + " -s reads its script from standard input", true
		case specialFile(a.text):
			return name + " reads its script from a stream", true
		}
		return "", false // a script file
	}
	if cmdMode {
		return "", false // -c without a string fails
	}
	return name + " reads its script from standard input", true
}

// xargsOpaque decides xargs: the program it runs gets words read from its
// input appended, or put in place of the replace string, so a shell -c
// without a script, or a program or script containing the replace
// string, runs what the input says.
func (ow *opaqueWalk) xargsOpaque(args []word, depth int) (string, bool) {
	if depth <= 0 {
		return "commands nested too deeply to look into", true
	}
	replace := ""
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return "xargs runs a program given by a word known only at run time", true
		}
		t := a.text
		switch {
		case t == "--":
			i++
			break options
		case t == "--replace" || t == "-i":
			replace = "{}"
		case strings.HasPrefix(t, "--replace="):
			replace = strings.TrimPrefix(t, "--replace=")
		case strings.HasPrefix(t, "--"):
			if !strings.Contains(t, "=") && slices.Contains([]string{"--arg-file", "--delimiter", "--max-args",
				"--max-procs", "--max-chars", "--max-lines", "--process-slot-var", "--eof"}, t) {
				i++
			}
		case len(t) > 1 && t[0] == '-':
			for j := 1; j < len(t); j++ {
				c := t[j]
				if c == 'i' {
					replace = "{}"
					if j+1 < len(t) {
						replace = t[j+1:]
					}
					break
				}
				if strings.IndexByte("IaEdLnPs", c) < 0 {
					continue
				}
				v := t[j+1:]
				if v == "" {
					i++
					if i < len(args) {
						v = args[i].text
					}
				}
				if c == 'I' {
					replace = v
				}
				break
			}
		default:
			break options
		}
	}
	if i >= len(args) {
		return "", false // xargs runs echo
	}
	cmd := args[i:]
	for _, w := range cmd {
		if !w.exact {
			return "xargs runs a program given by a word known only at run time", true
		}
	}
	if replace != "" && strings.Contains(cmd[0].text, replace) {
		return "xargs runs a program named by its input", true
	}
	name := path.Base(cmd[0].text)
	if shellPrograms[name] {
		r, ok := ow.shellOpaque(name, cmd[1:], depth-1)
		if ok {
			return r, ok
		}
		if script, found := shellScriptWord(cmd[1:]); !found || (replace != "" && strings.Contains(script, replace)) {
			return name + " under xargs runs a script read from xargs' input", true
		}
		return "", false
	}
	return ow.wordsOpaque(cmd, depth-1)
}

// shellScriptWord returns the -c script or script file of a shell's
// arguments, if there is one.
func shellScriptWord(args []word) (string, bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--" || t == "-":
			if i+1 < len(args) {
				return args[i+1].text, true
			}
			return "", false
		case t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			i += strings.Count(t, "o") + strings.Count(t, "O")
		default:
			return t, true
		}
	}
	return "", false
}
