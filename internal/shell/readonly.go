package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The walk below is written out by hand rather than with syntax.Walk so that
// every node type is decided explicitly: a node kind this file does not name
// is not read-only.

func (cl *classifier) stmtsReadOnly(ss []*syntax.Stmt) bool {
	for _, s := range ss {
		if !cl.stmtReadOnly(s) {
			return false
		}
	}
	return true
}

func (cl *classifier) stmtReadOnly(s *syntax.Stmt) bool {
	if s.Background || s.Coprocess || s.Disown {
		return false
	}
	for _, r := range s.Redirs {
		if !cl.redirectReadOnly(r) {
			return false
		}
	}
	if s.Cmd == nil { // only redirections, already checked
		return true
	}
	return cl.commandReadOnly(s.Cmd)
}

func (cl *classifier) commandReadOnly(cmd syntax.Command) bool {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return cl.callReadOnly(c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			return cl.stmtReadOnly(c.X) && cl.stmtReadOnly(c.Y)
		}
		return false
	case *syntax.Subshell:
		return cl.stmtsReadOnly(c.Stmts)
	case *syntax.Block:
		return cl.stmtsReadOnly(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			if !cl.stmtsReadOnly(c.Cond) || !cl.stmtsReadOnly(c.Then) {
				return false
			}
		}
		return true
	case *syntax.WhileClause:
		return cl.stmtsReadOnly(c.Cond) && cl.stmtsReadOnly(c.Do)
	case *syntax.ForClause:
		it, ok := c.Loop.(*syntax.WordIter)
		if !ok || c.Select { // C-style loops are arithmetic; select reads the terminal
			return false
		}
		return cl.wordsReadOnly(it.Items) && cl.stmtsReadOnly(c.Do)
	case *syntax.CaseClause:
		if !cl.wordReadOnly(c.Word) {
			return false
		}
		for _, item := range c.Items {
			if !cl.wordsReadOnly(item.Patterns) || !cl.stmtsReadOnly(item.Stmts) {
				return false
			}
		}
		return true
	case *syntax.TimeClause:
		return c.Stmt == nil || cl.stmtReadOnly(c.Stmt)
	case *syntax.TestClause:
		return cl.testReadOnly(c.X)
	}
	// Function definitions, declare/export/local, let, ((...)), coproc:
	// each changes shell state or evaluates arithmetic, where bash expands
	// array subscripts and so can run commands.
	return false
}

// testReadOnly checks a [[ ... ]] expression.
func (cl *classifier) testReadOnly(e syntax.TestExpr) bool {
	switch x := e.(type) {
	case *syntax.Word:
		return cl.wordReadOnly(x)
	case *syntax.ParenTest:
		return cl.testReadOnly(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			return false // -v a[$(cmd)] evaluates the subscript
		}
		return cl.testReadOnly(x.X)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			// [[ evaluates both operands as arithmetic, and arithmetic
			// evaluates array subscripts: only plain integers are safe.
			return isIntegerWord(x.X) && isIntegerWord(x.Y)
		}
		return cl.testReadOnly(x.X) && cl.testReadOnly(x.Y)
	}
	return false
}

func isIntegerWord(e syntax.TestExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	a := analyze(w)
	return a.exact && isDigits(strings.TrimPrefix(a.text, "-"))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (cl *classifier) redirectReadOnly(r *syntax.Redirect) bool {
	if r.N != nil && !isDigits(r.N.Value) {
		return false // {var}>file assigns a variable
	}
	if r.Word != nil && !cl.wordReadOnly(r.Word) {
		return false
	}
	if r.Hdoc != nil && !cl.wordReadOnly(r.Hdoc) {
		return false // an unquoted here-document expands its body
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.RdrIn:
		// bash opens /dev/tcp/host/port itself, whichever the direction
		// (1</dev/tcp/... sends a program's output there): the target
		// must be known, not a device and not outside the workspace.
		t := analyze(r.Word)
		return t.exact && cl.pathAllowed(t.text)
	case syntax.DplIn, syntax.DplOut:
		// 2>&1 and 3>&- duplicate or close descriptors; >&file writes a
		// file. Only the standard streams and descriptors opened by
		// redirections (which are themselves checked here) exist.
		t := analyze(r.Word)
		return t.exact && (isDigits(t.text) || t.text == "-")
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		t := analyze(r.Word)
		return t.exact && harmlessDevice(t.text)
	}
	return false // <> opens for writing; zsh forms
}

func (cl *classifier) wordsReadOnly(ws []*syntax.Word) bool {
	for _, w := range ws {
		if !cl.wordReadOnly(w) {
			return false
		}
	}
	return true
}

// wordReadOnly reports whether expanding w runs nothing that is not itself
// read-only and changes no shell state.
func (cl *classifier) wordReadOnly(w *syntax.Word) bool {
	return cl.partsReadOnly(w.Parts)
}

func (cl *classifier) partsReadOnly(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted, *syntax.ExtGlob:
		case *syntax.DblQuoted:
			if !cl.partsReadOnly(p.Parts) {
				return false
			}
		case *syntax.ParamExp:
			if !cl.paramReadOnly(p) {
				return false
			}
		case *syntax.CmdSubst:
			if p.TempFile || p.ReplyVar || !cl.stmtsReadOnly(p.Stmts) {
				return false
			}
		case *syntax.ProcSubst:
			// >(cmd) hands cmd a path to write to: fail closed.
			if p.Op != syntax.CmdIn || !cl.stmtsReadOnly(p.Stmts) {
				return false
			}
		default:
			return false // arithmetic expansion, brace expressions, future kinds
		}
	}
	return true
}

// paramReadOnly accepts $x, ${x}, ${#x} and the defaulting and trimming
// operators whose operand is itself read-only. It rejects ${x:=y} (assigns),
// ${x?} (aborts), indirection, subscripts (evaluated as arithmetic), slices
// and replacements.
func (cl *classifier) paramReadOnly(p *syntax.ParamExp) bool {
	if p.Param == nil || p.Flags != nil || p.Excl || p.Width || p.IsSet ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset ||
		p.NestedParam != nil || p.Index != nil || len(p.Modifiers) > 0 ||
		p.Slice != nil || p.Repl != nil || p.Names != 0 {
		return false
	}
	if p.Exp == nil {
		return true
	}
	switch p.Exp.Op {
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
		syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		return p.Exp.Word == nil || cl.wordReadOnly(p.Exp.Word)
	}
	return false
}

// Environment variables that only change how output looks. Any other
// assignment (PATH, LD_PRELOAD, GIT_*, PAGER=...) can change what a program
// runs, and a bare assignment changes it for the rest of the command line.
var harmlessEnv = map[string]bool{
	"LANG": true, "LANGUAGE": true, "LC_ALL": true, "LC_COLLATE": true, "LC_CTYPE": true,
	"LC_MESSAGES": true, "LC_NUMERIC": true, "LC_TIME": true, "TZ": true,
	"NO_COLOR": true, "COLUMNS": true, "LINES": true,
}

func assignReadOnly(as *syntax.Assign) bool {
	if as.Name == nil || as.Naked || as.Append || as.Index != nil || as.Array != nil {
		return false
	}
	if !harmlessEnv[as.Name.Value] {
		return false
	}
	if as.Value == nil {
		return true
	}
	v := analyze(as.Value)
	// A locale or time zone containing a slash names a file to load.
	return v.exact && !strings.ContainsRune(v.text, '/')
}

func (cl *classifier) callReadOnly(c *syntax.CallExpr) bool {
	for _, as := range c.Assigns {
		if !assignReadOnly(as) {
			return false
		}
	}
	if len(c.Args) == 0 {
		return true
	}
	if !cl.wordsReadOnly(c.Args) {
		return false
	}
	name := analyze(c.Args[0])
	// A dynamic name could be anything; a path could be a local script
	// that shadows a known name.
	if !name.exact || strings.ContainsRune(name.text, '/') {
		return false
	}
	check, ok := commands[name.text]
	if !ok {
		return false
	}
	args := make([]word, len(c.Args)-1)
	for i, w := range c.Args[1:] {
		args[i] = analyze(w)
	}
	return check(args) && cl.argsInside(name.text, args, c.Args[1:])
}
