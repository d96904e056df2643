package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SimpleCommand is one simple command of a command line, with its words
// after quote removal.
type SimpleCommand struct {
	// Env holds the NAME=value assignments written before the command.
	Env []string
	// Args is the program name followed by its arguments. It is empty for
	// a line that only assigns variables.
	Args []string
	// Redirects holds the redirections as written after quote removal:
	// ">out", "2>&1", "<in", "<<EOF" (a here-document, without its body).
	Redirects []string
}

// SimpleCommands returns every simple command of command, in source order,
// wherever it appears: in pipelines, lists (&&, ||, ;), subshells, blocks,
// if/while/for/case bodies and function bodies. declare, export, local and
// readonly are reported as commands too. "git status && rm -rf x" gives
// [git status] and [rm -rf x].
//
// Words are literal after quote removal: 'a b' and a\ b both give "a b".
// Unquoted glob characters and a leading tilde are kept as written ("*.go",
// "~/x"), not expanded. Anything whose value is known only at run time —
// parameter, command, arithmetic and process substitutions, brace
// expansions, $'...' — makes SimpleCommands fail with an error wrapping
// ErrNotLiteral, as does a glob in a program name; so does an arithmetic
// command or let, which can run substitutions hidden in variables. A
// command that does not parse gives an error wrapping ErrParse. Rules
// built on this can therefore only fail closed.
func SimpleCommands(command string) ([]SimpleCommand, error) {
	f, err := parse(command)
	if err != nil {
		return nil, err
	}
	var (
		out  []SimpleCommand
		werr error
	)
	fail := func(n syntax.Node, what string) bool {
		werr = fmt.Errorf("%w: %s at %s", ErrNotLiteral, what, n.Pos())
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if werr != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.Stmt:
			// Redirections are attached to the statement, the words to its
			// command: record the command here to keep both together.
			sc, err := stmtCommand(x)
			if err != nil {
				werr = err
				return false
			}
			if sc != nil {
				out = append(out, *sc)
			}
		case *syntax.ParamExp:
			return fail(x, "parameter expansion")
		case *syntax.CmdSubst:
			return fail(x, "command substitution")
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			return fail(x, "arithmetic")
		case *syntax.ProcSubst:
			return fail(x, "process substitution")
		case *syntax.ExtGlob:
			return fail(x, "extended glob")
		case *syntax.CoprocClause:
			return fail(x, "coprocess")
		case *syntax.ForClause:
			if _, ok := x.Loop.(*syntax.CStyleLoop); ok {
				return fail(x, "arithmetic for loop")
			}
		}
		return true
	})
	if werr != nil {
		return nil, werr
	}
	return out, nil
}

// stmtCommand returns the simple command s runs directly, or nil when s is
// a compound command (its parts are statements of their own).
func stmtCommand(s *syntax.Stmt) (*SimpleCommand, error) {
	var sc SimpleCommand
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, as := range c.Assigns {
			a, err := assignText(as)
			if err != nil {
				return nil, err
			}
			sc.Env = append(sc.Env, a)
		}
		for i, w := range c.Args {
			t, err := literal(w, i == 0)
			if err != nil {
				return nil, err
			}
			sc.Args = append(sc.Args, t)
		}
	case *syntax.DeclClause:
		sc.Args = append(sc.Args, c.Variant.Value)
		for _, as := range c.Args {
			a, err := assignText(as)
			if err != nil {
				return nil, err
			}
			sc.Args = append(sc.Args, a)
		}
	case nil: // redirections only: "> file" truncates a file
		if len(s.Redirs) == 0 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	for _, r := range s.Redirs {
		var b strings.Builder
		if r.N != nil {
			b.WriteString(r.N.Value)
		}
		b.WriteString(r.Op.String())
		t, err := literal(r.Word, false)
		if err != nil {
			return nil, err
		}
		b.WriteString(t)
		sc.Redirects = append(sc.Redirects, b.String())
	}
	return &sc, nil
}

func assignText(as *syntax.Assign) (string, error) {
	if as.Array != nil || as.Index != nil {
		return "", fmt.Errorf("%w: array assignment at %s", ErrNotLiteral, as.Pos())
	}
	if as.Naked {
		if as.Value != nil {
			return literal(as.Value, false)
		}
		return as.Name.Value, nil
	}
	op := "="
	if as.Append {
		op = "+="
	}
	if as.Value == nil {
		return as.Name.Value + op, nil
	}
	v, err := literal(as.Value, false)
	if err != nil {
		return "", err
	}
	return as.Name.Value + op + v, nil
}

// literal returns w after quote removal. A program name must be exact: a
// glob there could name any program.
func literal(w *syntax.Word, program bool) (string, error) {
	a := analyze(w)
	if a.expands || (program && !a.exact) {
		return "", fmt.Errorf("%w: word %q at %s", ErrNotLiteral, a.written, w.Pos())
	}
	return a.written, nil
}
