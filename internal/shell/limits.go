package shell

import (
	"errors"
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// ErrLimit reports a command larger or more deeply nested than the
// classifier reads. The parser recurses once per level of nesting, and
// Go cannot recover from a stack overflow, so such a command is refused
// before it is parsed (or, for nesting that only parsing reveals, right
// after). Errors wrapping ErrLimit wrap ErrParse too.
var ErrLimit = errors.New("shell: command exceeds the classifier's limits")

const (
	// maxCommandBytes bounds the length of a command line. It is what
	// makes parsing safe whatever the input: the parser's deepest
	// recursion per byte (a parenthesis in arithmetic, about 4 KiB of
	// stack) times this many bytes stays well below Go's 1 GB stack
	// limit.
	maxCommandBytes = 64 << 10
	// maxNesting bounds how deeply brackets, substitutions and compound
	// commands may nest. Real command lines nest a few levels; the bound
	// keeps parsing and every walk over the tree fast and shallow.
	maxNesting = 128
)

// limitError is a command refused for its size or depth: it wraps ErrParse
// and ErrLimit, and detail says which limit, for the user.
type limitError struct{ detail string }

func (e *limitError) Error() string   { return ErrLimit.Error() + ": " + e.detail }
func (e *limitError) Unwrap() []error { return []error{ErrParse, ErrLimit} }

// checkSize refuses, before parsing, a command longer than
// maxCommandBytes or whose brackets, counted without regard to quoting,
// open deeper than maxNesting. A closing bracket lowers the count, so a
// quoted one can hide depth from this count: checkNesting, after parsing,
// measures the real depth, and the length bound keeps the parse itself
// safe in between.
func checkSize(command string) error {
	if len(command) > maxCommandBytes {
		return &limitError{fmt.Sprintf("the command is %d bytes long, over the limit of %d bytes", len(command), maxCommandBytes)}
	}
	depth := 0
	for i := 0; i < len(command); i++ {
		switch command[i] {
		case '(', '{', '[':
			if depth++; depth > maxNesting {
				return nestingError()
			}
		case ')', '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

func nestingError() error {
	return &limitError{fmt.Sprintf("the command nests more than %d levels deep, over the limit", maxNesting)}
}

// checkNesting measures how deeply the parsed command nests its compound
// commands, substitutions and expansions, and refuses one deeper than
// maxNesting. Chains of binary operators (a | b | c, 1+2+3) are not
// counted: they are long rather than deep.
func checkNesting(f *syntax.File) error {
	depth, exceeded := 0, false
	var open []bool // whether each node being walked counted as a level
	syntax.Walk(f, func(n syntax.Node) bool {
		switch {
		case exceeded:
			return false
		case n == nil:
			if open[len(open)-1] {
				depth--
			}
			open = open[:len(open)-1]
			return true
		}
		level := nests(n)
		if level {
			if depth++; depth > maxNesting {
				exceeded = true
				return false
			}
		}
		open = append(open, level)
		return true
	})
	if exceeded {
		return nestingError()
	}
	return nil
}

// nests reports the nodes that open a level of nesting.
func nests(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.Subshell, *syntax.Block, *syntax.CmdSubst, *syntax.ProcSubst,
		*syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
		*syntax.FuncDecl, *syntax.TestClause, *syntax.ParenTest, *syntax.ArithmExp,
		*syntax.ArithmCmd, *syntax.ParenArithm, *syntax.ParamExp, *syntax.LetClause,
		*syntax.CoprocClause, *syntax.ExtGlob:
		return true
	}
	return false
}
