package shell

import (
	"os"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A variable assigned anywhere but in a plain NAME=value word is invisible
// to the rules, which see simple commands, and can change what every
// later command of the line does: PATH picks the programs, HOME the git
// configuration, CDPATH where cd goes, IFS how words split. So every such
// construct (for and select loops, read, mapfile, getopts, printf -v,
// wait -p, declare and its kin, ${x:=y}, {x}>file, unset) makes a line
// opaque unless the variable is provably harmless. Arithmetic that
// names a variable is opaque already (hasName).
//
// A variable is provably harmless when all of these hold:
//
//   - its name is lower case, [a-z_][a-z0-9_]*, other than _: bash's own
//     variables (PATH, IFS, CDPATH, BASH_ENV, PS4, ...) are upper case
//     but for the few in lowerCaseSpecial;
//   - it is not in lowerCaseSpecial, which lists the lower-case names
//     that bash or common programs read;
//   - ply's own environment does not hold it. Commands get a subset of
//     that environment, with a few upper-case variables added, so the
//     variable is not inherited, and a variable that is not inherited is
//     not exported unless the line exports it: export, declare -x, set -a
//     and shopt are opaque themselves, and a SHELLOPTS holding allexport
//     in the environment makes no name harmless.
//
// Such a variable is then seen only by the line's own expansions, and the
// classifier refuses every expansion whose value it does not know where
// the value matters (a program's name, a path).

// lowerCaseSpecial are lower-case variable names that bash reads (or that
// zsh ties to a special array), and proxy settings that many programs
// read from the environment.
var lowerCaseSpecial = map[string]bool{
	"auto_resume": true, "histchars": true,
	"http_proxy": true, "https_proxy": true, "ftp_proxy": true, "no_proxy": true, "all_proxy": true,
	"socks_proxy": true, "rsync_proxy": true, "gopher_proxy": true, "wais_proxy": true,
	"path": true, "cdpath": true, "fpath": true, "manpath": true, "mailpath": true,
	"module_path": true, "fignore": true, "psvar": true, "watch": true, "prompt": true,
}

// harmlessVariable reports whether assigning the shell variable name is
// provably seen by nothing but the line's own expansions.
func harmlessVariable(name string) bool {
	if name == "" || name == "_" || lowerCaseSpecial[name] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	if _, inherited := os.LookupEnv(name); inherited {
		return false
	}
	return !strings.Contains(os.Getenv("SHELLOPTS"), "allexport")
}

// assignedOpaque is the reason a construct assigning name makes a line
// opaque, if it does.
func assignedOpaque(what, name string) (string, bool) {
	if harmlessVariable(name) {
		return "", false
	}
	return what + " assigns " + quoteName(name) + ", a variable that may change what the line's programs do", true
}

func quoteName(name string) string {
	if name == "" {
		return "a variable named at run time"
	}
	return "$" + name
}

// assignNodeOpaque decides the syntax nodes that assign a variable: for
// and select loops, ${x:=y} and ${x=y}, {x}>file, and declare, typeset,
// local, readonly and export.
func assignNodeOpaque(n syntax.Node) (string, bool) {
	switch x := n.(type) {
	case *syntax.ForClause:
		if it, ok := x.Loop.(*syntax.WordIter); ok {
			what := "for"
			if x.Select {
				what = "select"
			}
			return assignedOpaque(what, it.Name.Value)
		}
	case *syntax.ParamExp:
		if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
			if x.Param == nil || x.Index != nil || x.Excl {
				return assignedOpaque("${name:=value}", "")
			}
			return assignedOpaque("${name:=value}", x.Param.Value)
		}
	case *syntax.Redirect:
		if x.N != nil && !isDigits(x.N.Value) {
			return assignedOpaque("{name}>file", strings.Trim(x.N.Value, "{}"))
		}
	case *syntax.DeclClause:
		ws := make([]word, 0, len(x.Args))
		for _, as := range x.Args {
			switch {
			case as.Naked && as.Name == nil && as.Value != nil:
				ws = append(ws, analyze(as.Value))
			case as.Name != nil && as.Index != nil:
				ws = append(ws, word{text: as.Name.Value + "[", exact: true})
			case as.Name != nil:
				ws = append(ws, word{text: as.Name.Value, exact: true})
			}
		}
		return declOpaque(x.Variant.Value, ws)
	}
	return "", false
}

// declOpaque decides declare, typeset, local, readonly and export given
// their words. export, -x, -n (a name reference, through which any name
// is assigned), -i (arithmetic on every assignment) and -I are opaque;
// every name assigned must be harmless. -f and -F name functions, not
// variables.
func declOpaque(variant string, ws []word) (string, bool) {
	if variant != "declare" && variant != "typeset" && variant != "local" && variant != "readonly" {
		for _, w := range ws {
			if !w.exact || !strings.HasPrefix(w.text, "-") {
				return variant + " changes the environment of the programs the line runs", true
			}
		}
		return "", false // export -p lists
	}
	functions := false
	var names []word
	for _, w := range ws {
		switch {
		case !w.exact:
			return variant + " of a word known only at run time", true
		case len(w.text) > 1 && (w.text[0] == '-' || w.text[0] == '+'):
			if strings.Trim(w.text[1:], "aAgrlutfFp") != "" {
				return variant + " " + w.text + " exports, references or evaluates what it assigns", true
			}
			functions = functions || strings.ContainsAny(w.text, "fF")
		default:
			names = append(names, w)
		}
	}
	if functions {
		return "", false
	}
	for _, w := range names {
		name, _, _ := strings.Cut(w.text, "=")
		if r, ok := assignedOpaque(variant, name); ok {
			return r, ok
		}
	}
	return "", false
}

// builtinAssignOpaque decides, by name, the builtins that assign
// variables or change how the shell expands words: read, mapfile,
// readarray, getopts, printf -v, wait -p, unset, let, set, shopt and
// enable, and declare and its kin when run through builtin or command.
// It returns found false for any other name.
func builtinAssignOpaque(name string, args []word) (reason string, opaque, found bool) {
	switch name {
	case "declare", "typeset", "local", "readonly", "export":
		reason, opaque = declOpaque(name, args)
	case "read":
		reason, opaque = namesOpaque(name, args, "dinNptu", "a", "REPLY")
	case "mapfile", "readarray":
		reason, opaque = namesOpaque(name, args, "dnOsuCc", "", "MAPFILE")
	case "getopts":
		reason, opaque = "getopts assigns OPTIND and OPTARG", true
	case "printf":
		reason, opaque = namesOpaque(name, args, "", "v", "")
	case "wait":
		reason, opaque = namesOpaque(name, args, "", "p", "")
	case "let":
		reason, opaque = "let assigns variables by arithmetic", true
	case "unset":
		reason, opaque = unsetOpaque(args)
	case "set":
		reason, opaque = setOpaque(args)
	case "shopt":
		for _, a := range args {
			if l, ok := shortCluster(a.text); !a.exact || (ok && strings.ContainsAny(l, "suo")) {
				return "shopt changes how the shell expands words or runs commands", true, true
			}
		}
	case "enable":
		for _, a := range args {
			if l, ok := shortCluster(a.text); !a.exact || !ok || strings.Trim(l, "aps") != "" {
				return "enable changes which builtins run", true, true
			}
		}
	default:
		return "", false, false
	}
	return reason, opaque, true
}

// namesOpaque decides a builtin whose options in valueLetters take a
// value, whose options in nameLetters take the name of a variable to
// assign, and whose operands name variables to assign; with no name at
// all it assigns dflt ("" when it then assigns nothing).
func namesOpaque(cmd string, args []word, valueLetters, nameLetters, dflt string) (string, bool) {
	named := false
	options := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return cmd + " of a word known only at run time", true
		}
		if options && a.text == "--" {
			options = false
			continue
		}
		letters, isOption := shortCluster(a.text)
		if !options || !isOption {
			if cmd == "printf" || cmd == "wait" {
				options = false // operands: a format and its arguments, or ids
				continue
			}
			named = true
			if r, ok := assignedOpaque(cmd, a.text); ok {
				return r, ok
			}
			continue
		}
		for j := 0; j < len(letters); j++ {
			c := letters[j]
			if strings.IndexByte(valueLetters+nameLetters, c) < 0 {
				continue
			}
			v := letters[j+1:]
			if v == "" {
				if i++; i < len(args) {
					if !args[i].exact {
						return cmd + " of a word known only at run time", true
					}
					v = args[i].text
				}
			}
			if strings.IndexByte(nameLetters, c) >= 0 {
				named = true
				if r, ok := assignedOpaque(cmd+" -"+string(c), v); ok {
					return r, ok
				}
			}
			break
		}
	}
	if !named && dflt != "" {
		return cmd + " assigns " + dflt, true
	}
	return "", false
}

// unsetOpaque: unsetting a variable bash or a program reads (IFS, PATH)
// changes the line's later commands as much as assigning it; -f unsets
// functions.
func unsetOpaque(args []word) (string, bool) {
	functions := false
	for _, a := range args {
		if !a.exact {
			return "unset of a word known only at run time", true
		}
		if l, ok := shortCluster(a.text); ok {
			functions = functions || strings.Contains(l, "f")
			continue
		}
		if functions {
			continue
		}
		if r, ok := assignedOpaque("unset", a.text); ok {
			return r, ok
		}
	}
	return "", false
}

// Options of set that change nothing but how the line fails or what it
// prints: -e, -u, -x, -v, -f (no globbing), -C (no clobbering), -E.
const safeSetLetters = "euxvfCE"

var safeSetNames = map[string]bool{
	"errexit": true, "nounset": true, "xtrace": true, "verbose": true, "pipefail": true,
	"noglob": true, "noclobber": true, "errtrace": true,
}

// setOpaque accepts set with the options above and positional parameters;
// -a (export everything), -k (assignments anywhere), -B, -H, -P, -o posix
// and the rest change what later commands do.
func setOpaque(args []word) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return "set of a word known only at run time", true
		}
		t := a.text
		if t == "" || t == "--" || t == "-" || (t[0] != '-' && t[0] != '+') {
			return "", false // the rest are positional parameters
		}
		for _, c := range t[1:] {
			if c == 'o' {
				if i+1 >= len(args) {
					return "", false // set -o lists the options
				}
				i++
				if !args[i].exact || !safeSetNames[args[i].text] {
					return "set -o " + args[i].text + " changes how the shell runs later commands", true
				}
				continue
			}
			if !strings.ContainsRune(safeSetLetters, c) {
				return "set " + t + " changes how the shell runs later commands", true
			}
		}
	}
	return "", false
}
