// Package shell classifies shell commands by parsing them with a real shell
// parser (mvdan.cc/sh, bash dialect): whether a command is read-only (and so
// safe to run in parallel and to auto-approve), which simple commands it
// is made of (for permission rules), and whether it is opaque: whether it
// may run a program that cannot be named without running it. It runs
// nothing; IsReadOnlyIn looks at the file system to follow links.
//
// Every answer fails closed. IsReadOnly says true only when it understood
// every part of the command and found nothing that can write, run an
// unknown program, change what a known program does, reach the network or
// read outside the workspace; anything it cannot parse or does not know is
// not read-only. SimpleCommands returns an error rather than a guess
// whenever a word's value is known only at run time. Opaque says true
// whenever the programs a command runs cannot all be named statically.
//
// What "read-only" means here: the command changes no file, no process
// outside itself and no lasting shell state, opens no device but the null
// device and the standard streams (bash connects 1</dev/tcp/host/port
// itself), and reads only inside the workspace roots, for the list of
// programs in commands.go with the options checked there. Deliberate
// allowances:
//
//   - cd into the workspace is accepted: it changes only the working
//     directory of the shell that runs the command, which ends with the
//     command.
//   - configuration the user already trusts (the user's git config and the
//     workspace repository's .git/config, which no ply tool may write,
//     ripgrep's config file, the environment ply was started with) is
//     trusted. git counts as read-only only against that repository: -C,
//     --git-dir, --work-tree, GIT_* assignments, -c, --config-env,
//     --no-index, --ext-diff, --textconv, a pager and a working directory
//     inside another repository all make it not read-only, and SafeGitEnv
//     switches off what configuration could still run.
//
// Backgrounded commands (cmd &) are never read-only: they may outlive the
// tool call, which then cannot account for what they do.
package shell

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// ErrParse reports a command the parser rejected; it wraps the parser's
// error.
var ErrParse = errors.New("shell: cannot parse command")

// ErrNotLiteral reports a word whose value is known only at run time
// (a parameter, command or arithmetic substitution, a brace expansion), or
// a construct whose effect depends on such a value. Permission rules must
// treat the command as unmatched.
var ErrNotLiteral = errors.New("shell: not a literal")

// Parsers are reusable but not safe for concurrent use; a pool keeps the
// classifier allocation-light when the scheduler checks many commands.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// parse parses command as a bash script. Every entry point parses through
// here, so that the limits on size and nesting hold for all of them and
// for the command strings (eval, sh -c) they look into.
func parse(command string) (*syntax.File, error) {
	if err := checkSize(command); err != nil {
		return nil, err
	}
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	f, err := p.Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	if err := checkNesting(f); err != nil {
		return nil, err
	}
	if err := checkBashAgrees(command, f); err != nil {
		return nil, err
	}
	return f, nil
}

// IsReadOnly reports whether every part of command — every simple command
// of every pipeline, list, subshell, block, command substitution and
// process substitution — is a known read-only command with safe options,
// with no output redirection other than to /dev/null (or a duplication of
// an existing descriptor such as 2>&1), no environment assignment that can
// change a program's behaviour, no function definition and nothing run in
// the background. An empty command, or one that does not parse, is not
// read-only.
//
// IsReadOnly does not know the workspace: it refuses every path that may
// lie outside any directory (absolute, ~, ..), and never follows links.
// Callers that know the workspace roots use IsReadOnlyIn.
func IsReadOnly(command string) bool {
	return (&classifier{}).classify(command)
}
