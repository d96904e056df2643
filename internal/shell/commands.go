package shell

import (
	"path"
	"slices"
	"strings"
)

// checker decides whether a known program with these arguments (the
// program name excluded) is read-only.
type checker func(args []word) bool

// commands lists the programs that may be read-only. The list is
// deliberately short: a program earns a place only when none of its
// options writes files or runs other programs, or when the options that do
// are recognised below (including GNU's unambiguous abbreviations of long
// options). Interpreters, xargs, sudo, env with a command, eval, exec,
// awk (system(), print > file) and editors are absent on purpose.
var commands map[string]checker

func init() {
	commands = map[string]checker{
		"cd": anyArgs, "pwd": anyArgs, "ls": anyArgs, "cat": anyArgs, "head": anyArgs,
		"tail": anyArgs, "wc": filesFromArgs, "echo": anyArgs, "grep": anyArgs, "egrep": anyArgs,
		"fgrep": anyArgs, "which": anyArgs, "whoami": anyArgs, "uname": anyArgs,
		"stat": anyArgs, "du": filesFromArgs, "df": anyArgs, "cut": anyArgs, "tr": anyArgs,
		"diff": anyArgs, "cmp": anyArgs, "basename": anyArgs, "dirname": anyArgs,
		"realpath": anyArgs, "readlink": anyArgs, "printenv": anyArgs,
		"true": anyArgs, "false": anyArgs, ":": anyArgs,
		"test": testArgs, "[": testArgs,
		"printf": printfArgs,
		"env":    envArgs,
		"find":   findArgs,
		"rg":     rgArgs,
		"sort":   sortArgs,
		"uniq":   uniqArgs,
		"tree":   treeArgs,
		"date":   dateArgs,
		"file":   fileArgs,
		"sed":    sedArgs,
		"git":    gitArgs,
	}
}

// anyArgs is for programs none of whose options write or execute.
func anyArgs([]word) bool { return true }

// noHiddenOptions reports whether every option among args is visible: a
// word that may expand to an option at run time could be the dangerous one.
func noHiddenOptions(args []word) bool {
	for i := range args {
		if !args[i].exact && args[i].mayBeOption() {
			return false
		}
	}
	return true
}

// longOption reports whether arg is "--" followed by a non-empty prefix of
// name, alone or with "=value": getopt_long resolves unambiguous
// abbreviations, so --out=x is --output=x.
func longOption(arg, name string) bool {
	if !strings.HasPrefix(arg, "--") {
		return false
	}
	opt, _, _ := strings.Cut(arg[2:], "=")
	return opt != "" && strings.HasPrefix(name, opt)
}

// shortCluster returns the letters of a single-dash option word ("-nr"
// gives "nr"); ok is false for operands, "-" and long options.
func shortCluster(arg string) (letters string, ok bool) {
	if len(arg) < 2 || arg[0] != '-' || arg[1] == '-' {
		return "", false
	}
	return arg[1:], true
}

// rejectOptions builds a checker that refuses any visible short option
// containing one of the letters in short, any long option abbreviating one
// of long, and any option hidden behind an expansion. It suits programs
// with many harmless options and a few dangerous ones. A letter that is
// really the value of another option (sort -to) is refused too: erring on
// the side of not read-only.
func rejectOptions(short string, long ...string) checker {
	return func(args []word) bool {
		if !noHiddenOptions(args) {
			return false
		}
		for _, a := range args {
			if !a.exact {
				continue
			}
			if letters, ok := shortCluster(a.text); ok && strings.ContainsAny(letters, short) {
				return false
			}
			for _, name := range long {
				if longOption(a.text, name) {
					return false
				}
			}
		}
		return true
	}
}

var (
	// -o writes; the compressor runs a program; -T writes temporary files
	// anywhere; --files0-from reads the names of the files to read from a
	// file, where the path checks cannot see them.
	sortArgs = rejectOptions("oT", "output", "compress-program", "temporary-directory", "files0-from")
	treeArgs = rejectOptions("oR", "output")                // -R re-runs tree with -o 00Tree.html
	fileArgs = rejectOptions("Cf", "compile", "files-from") // -C writes a compiled magic file; -f as --files0-from
)

// filesFromArgs: wc and du read the names of the files to count from
// --files0-from's file, where the path checks cannot see them. A glob may
// still expand to that option; wc and du would then only print counts and
// sizes of the files listed, so globs are accepted.
func filesFromArgs(args []word) bool {
	for _, a := range args {
		if a.exact && longOption(a.text, "files0-from") {
			return false
		}
		if !a.exact && !a.globOnly && a.mayBeOption() {
			return false
		}
	}
	return true
}

// testArgs: test and [ are builtins; bash's test -v and -R evaluate an
// array subscript, which can run a command substitution.
func testArgs(args []word) bool {
	for _, a := range args {
		if a.exact && (a.text == "-v" || a.text == "-R") {
			return false
		}
	}
	return true
}

// printfArgs: printf -v assigns a shell variable.
func printfArgs(args []word) bool {
	if len(args) == 0 {
		return true
	}
	a := args[0]
	if !a.exact {
		return !a.mayBeOption()
	}
	return !strings.HasPrefix(a.text, "-v")
}

// envArgs: env prints the environment only without operands; with a
// command (or NAME=value, or -S) it runs something.
func envArgs(args []word) bool {
	for _, a := range args {
		if !a.exact || (a.text != "-0" && a.text != "--null") {
			return false
		}
	}
	return true
}

// findDangerous are the primaries that delete, run programs or write files.
var findDangerous = []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}

// findArgs: find's primaries are whole words, so a glob is dangerous only
// if it can match one of them (a file named -delete in the working
// directory turns "find *" into "find -delete").
func findArgs(args []word) bool {
	for _, a := range args {
		if a.exact {
			if slices.Contains(findDangerous, a.text) {
				return false
			}
			continue
		}
		if !a.mayBeOption() {
			continue
		}
		if !a.globOnly {
			return false
		}
		for _, d := range findDangerous {
			if m, err := path.Match(a.pattern, d); err != nil || m {
				return false
			}
		}
	}
	return true
}

// rgArgs: --pre runs a preprocessor program on every file searched, and
// --hostname-bin a program that prints the host name. ripgrep's parser
// takes no abbreviations. --search-zip (-z) is accepted: it runs only the
// fixed decompressors (gzip, xz, ...) found in PATH, to read.
func rgArgs(args []word) bool {
	if !noHiddenOptions(args) {
		return false
	}
	for _, a := range args {
		if !a.exact {
			continue
		}
		for _, opt := range []string{"--pre", "--hostname-bin"} {
			if a.text == opt || strings.HasPrefix(a.text, opt+"=") {
				return false
			}
		}
	}
	return true
}

// uniqArgs: uniq's second operand is an output file, so at most one
// operand is allowed; option values are skipped so they are not counted.
func uniqArgs(args []word) bool {
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			if a.mayBeOption() {
				return false
			}
			operands++
			continue
		}
		t := a.text
		switch {
		case t == "--":
			operands += len(args) - i - 1
			i = len(args)
		case strings.HasPrefix(t, "--"):
			name, _, hasValue := strings.Cut(t[2:], "=")
			switch name {
			case "count", "repeated", "unique", "ignore-case", "zero-terminated", "all-repeated", "group":
			case "skip-fields", "skip-chars", "check-chars":
				if !hasValue {
					i++
				}
			default:
				return false // includes abbreviations: refuse rather than resolve
			}
		case len(t) > 1 && t[0] == '-':
			for j := 1; j < len(t); j++ {
				if strings.IndexByte("cdDuiz", t[j]) >= 0 {
					continue
				}
				if strings.IndexByte("fsw", t[j]) < 0 {
					return false
				}
				if j == len(t)-1 {
					i++ // the value is the next word
				}
				break
			}
		default:
			operands++
		}
	}
	return operands <= 1
}

// dateArgs: date -s and a bare MMDDhhmm operand set the system clock; only
// +FORMAT operands and display options are accepted.
func dateArgs(args []word) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return false
		}
		t := a.text
		switch {
		case strings.HasPrefix(t, "+"):
		case t == "-u" || t == "--utc" || t == "--universal" || t == "-R" || t == "--rfc-email" || t == "--debug":
		case t == "-d" || t == "--date" || t == "-r" || t == "--reference":
			i++ // the value is a date or a file to read, never an option
		case strings.HasPrefix(t, "-d") || strings.HasPrefix(t, "-r") || strings.HasPrefix(t, "-I"):
			// attached value: -dyesterday, -rfile, -Iseconds
		case strings.HasPrefix(t, "--date=") || strings.HasPrefix(t, "--reference=") ||
			strings.HasPrefix(t, "--iso-8601") || strings.HasPrefix(t, "--rfc-3339="):
		default:
			return false
		}
	}
	return true
}
