package loopdetect

import (
	"encoding/json"
	"path"
	"strings"
)

// Class is what a tool call does, as far as the guards care.
type Class int

const (
	// ClassChange may change the workspace: edits, writes, shell commands
	// that are not inspection, and every tool the classifier does not
	// know. It ends shell stagnation and the read-only cold start. Unknown
	// tools land here because a false "change" only delays a guard, while
	// a false "read" could trip one.
	ClassChange Class = iota
	// ClassReadFile reads file contents (read_file, read_many_files).
	ClassReadFile
	// ClassReadOnly looks without reading file contents: search, listing,
	// fetching.
	ClassReadOnly
	// ClassInspect is a shell command that only shows state (ls, cat,
	// git status, git diff, ...): running it again with no change in
	// between cannot show anything new. That is the stagnation guard's
	// definition.
	ClassInspect
)

// DefaultClassify classifies ply's built-in tools by name, and
// run_shell_command by its "command" argument (see IsInspection).
func DefaultClassify(name, args string) Class {
	switch name {
	case "read_file", "read_many_files":
		return ClassReadFile
	case "glob", "grep_search", "list_directory", "web_fetch", "web_search":
		return ClassReadOnly
	case "run_shell_command":
		var a struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(args), &a) == nil && IsInspection(a.Command) {
			return ClassInspect
		}
	}
	return ClassChange
}

// IsInspection reports whether every command of a shell command line only
// shows state: ls, cat, head, git status, git diff and the like, joined by
// pipes, && or ;, without redirection or substitution.
//
// This is not package shell's read-only classifier and must not become it:
// that one grants parallelism and auto-approval, so it fails closed and
// says "not read-only" to anything it does not fully understand, which
// here would silently weaken an always-on guard. Here a wrong answer costs
// only a guard that trips a little early or late, so a word list on a
// plain split is the right tool. Integrators who prefer the parser's
// verdict can pass it through Options.Classify.
func IsInspection(command string) bool {
	if strings.ContainsAny(command, "<>`$") {
		return false
	}
	segs := strings.FieldsFunc(command, func(r rune) bool {
		return r == '|' || r == '&' || r == ';' || r == '\n'
	})
	inspects := false
	for _, seg := range segs {
		f := strings.Fields(seg)
		if len(f) == 0 {
			continue
		}
		switch word := path.Base(f[0]); {
		case word == "cd":
			// Moving around is neither inspection nor change.
		case inspectionWords[word]:
			inspects = true
		case word == "sed" && !hasFlag(f[1:], "-i", "--in-place"):
			inspects = true
		case word == "git" && len(f) > 1 && gitInspection[f[1]]:
			inspects = true
		case word == "git" && len(f) > 1 && gitListing[f[1]] && onlyListFlags(f[2:]):
			inspects = true
		case word == "go" && len(f) > 1 && (f[1] == "list" || f[1] == "env" || f[1] == "version" || f[1] == "doc"):
			inspects = true
		default:
			return false
		}
	}
	return inspects
}

var inspectionWords = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "pwd": true, "wc": true,
	"stat": true, "file": true, "tree": true, "find": true, "grep": true, "egrep": true,
	"rg": true, "ag": true, "fd": true, "du": true, "df": true, "which": true,
	"whereis": true, "type": true, "echo": true, "env": true, "printenv": true,
	"date": true, "whoami": true, "uname": true, "diff": true, "cmp": true,
	"realpath": true, "readlink": true, "basename": true, "dirname": true,
	"nl": true, "sort": true, "uniq": true, "cut": true, "tr": true, "jq": true,
	"column": true, "ps": true, "id": true, "hostname": true, "true": true,
}

var gitInspection = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "ls-files": true,
	"blame": true, "rev-parse": true, "describe": true, "shortlog": true,
	"grep": true, "reflog": true,
}

// gitListing are git commands that list when given only flags, and change
// things when given names (git branch x, git remote add).
var gitListing = map[string]bool{"branch": true, "remote": true, "tag": true}

func onlyListFlags(args []string) bool {
	for _, a := range args {
		switch {
		case a == "-d", a == "-D", a == "-m", a == "-M", a == "-c", a == "-C",
			strings.HasPrefix(a, "--delete"), strings.HasPrefix(a, "--move"), strings.HasPrefix(a, "--copy"):
			return false
		case !strings.HasPrefix(a, "-"):
			return false
		}
	}
	return true
}

func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if strings.HasPrefix(a, f) {
				return true
			}
		}
	}
	return false
}
