package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// PathOperands returns the words of one simple command (program first,
// words after quote removal, as SimpleCommands gives them) that may name
// files the program opens: every operand and every value of an option,
// attached (--file=x, -fx) or not, except the values of options known to
// be patterns, formats or delimiters and the pattern operand of grep, rg
// and sed. A program known never to open its operands (echo, printf,
// basename, ...) gives none. Words are returned as written: a glob or a
// leading tilde is for the caller to expand.
//
// It over-approximates on purpose: permission rules about paths use it
// to find every file a command may name, and a word that is not a path
// costs at most a question.
func PathOperands(args []string) []string {
	operands, values := operandWords(args)
	return append(operands, values...)
}

// operandWords splits what PathOperands returns into the operands and
// the values of options.
func operandWords(args []string) (operands, values []string) {
	if len(args) == 0 {
		return nil, nil
	}
	name := path.Base(args[0])
	if noFileOperands[name] {
		return nil, nil
	}
	ws := make([]word, len(args)-1)
	for i, a := range args[1:] {
		ws[i] = word{text: a, exact: true, written: a}
	}
	skip := notPathValues[name]
	patternFirst := patternOptions[name] != "" && !hasPatternOption(name, ws)
	options := true
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case options && a == "--":
			options = false
		case options && len(a) > 1 && a[0] == '-':
			values = append(values, optionValue(a, skip)...)
			if slices.Contains(skip, a) {
				i++ // its value is not a path
			}
		case patternFirst:
			patternFirst = false
		default:
			operands = append(operands, a)
			if name == "git" {
				// git show REV:path reads path as of REV.
				if _, p, ok := strings.Cut(a, ":"); ok && p != "" {
					operands = append(operands, p)
				}
			}
		}
	}
	return operands, values
}

// optionValue returns the part of an option word that may be a path:
// the value of --name=value, or what follows the letter of -fvalue.
func optionValue(opt string, skip []string) []string {
	if strings.HasPrefix(opt, "--") {
		name, value, ok := strings.Cut(opt, "=")
		if !ok || value == "" || slices.Contains(skip, name) {
			return nil
		}
		return []string{value}
	}
	if len(opt) <= 2 || slices.Contains(skip, opt[:2]) {
		return nil
	}
	return []string{opt[2:]}
}

// Search says how a program reads the directories among its operands.
type Search struct {
	// Recursive reports that it may read the contents of every file
	// below a directory operand.
	Recursive bool
	// WorkingDir reports that it searches the working directory: it was
	// given no operand to search, and searches the working directory
	// then (rg, grep -r, git grep).
	WorkingDir bool
}

// Searches returns how one simple command (program first) reads the
// directories among its operands. Programs known to list names or sizes
// only (ls, du, tree, find without actions), or to refuse directories
// (cat, head, ...), read none; grep -r, rg, diff -r and git grep read
// them recursively; so may any program not known here (tar, cp -r, zip).
func Searches(args []string) Search {
	if len(args) == 0 {
		return Search{}
	}
	s := searches(args)
	if operands, _ := operandWords(args); len(operands) > 0 && path.Base(args[0]) != "git" {
		s.WorkingDir = false
	}
	return s
}

func searches(args []string) Search {
	name := path.Base(args[0])
	switch name {
	case "grep", "egrep", "fgrep":
		if hasLetterOption(args[1:], "rR", "recursive", "dereference-recursive") {
			return Search{Recursive: true, WorkingDir: true}
		}
		return Search{}
	case "rg":
		return Search{Recursive: true, WorkingDir: true}
	case "diff":
		return Search{Recursive: hasLetterOption(args[1:], "r", "recursive")}
	case "git":
		return gitSearch(args[1:])
	case "find":
		for _, a := range args[1:] {
			if slices.Contains(findDangerous, a) {
				return Search{Recursive: true, WorkingDir: true}
			}
		}
		return Search{}
	case "ls":
		return Search{} // names only, even with -R
	}
	if _, known := commands[name]; known || noFileOperands[name] {
		return Search{}
	}
	return Search{Recursive: true}
}

// gitSearch: git grep reads the files of the work tree or of a revision,
// and git archive the whole tree; the other subcommands take paths as
// pathspecs of the repository.
func gitSearch(args []string) Search {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			if a == "-C" || a == "-c" {
				return Search{Recursive: true, WorkingDir: true} // another place: anything
			}
			continue
		}
		switch a {
		case "grep", "archive", "bundle", "stash":
			return Search{Recursive: true, WorkingDir: true}
		}
		return Search{Recursive: true}
	}
	return Search{}
}

// hasLetterOption reports whether args hold a short option cluster with
// one of letters, or one of the long options (or an abbreviation).
func hasLetterOption(args []string, letters string, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if l, ok := shortCluster(a); ok && strings.ContainsAny(l, letters) {
			return true
		}
		for _, name := range long {
			if longOption(a, name) {
				return true
			}
		}
	}
	return false
}

// OperandsKnown reports whether every word that may name a file in
// command is known statically: command parses, and no program that
// opens its operands (anything but echo, printf and the like) has an
// operand, option or redirection whose value is computed at run time
// (a parameter, command or arithmetic substitution, a brace expansion),
// and no xargs reads operands from its input. Globs count as known: the
// caller can expand them.
func OperandsKnown(command string) bool {
	f, err := parse(command)
	if err != nil {
		return false
	}
	known := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			for _, r := range x.Redirs {
				if r.Word != nil && analyze(r.Word).expands {
					known = false
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				break
			}
			name := analyze(x.Args[0])
			if !name.exact {
				known = false
				break
			}
			prog := path.Base(name.text)
			if prog == "xargs" {
				known = false // its operands come from standard input
				break
			}
			if noFileOperands[prog] && prog != "env" {
				break
			}
			for _, w := range x.Args[1:] {
				if analyze(w).expands {
					known = false
				}
			}
		}
		return known
	})
	return known
}
