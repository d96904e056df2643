package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The walk below is written out by hand rather than with syntax.Walk so that
// every node type is decided explicitly: a node kind this file does not name
// is not read-only.

func stmtsReadOnly(ss []*syntax.Stmt) bool {
	for _, s := range ss {
		if !stmtReadOnly(s) {
			return false
		}
	}
	return true
}

func stmtReadOnly(s *syntax.Stmt) bool {
	if s.Background || s.Coprocess || s.Disown {
		return false
	}
	for _, r := range s.Redirs {
		if !redirectReadOnly(r) {
			return false
		}
	}
	if s.Cmd == nil { // only redirections, already checked
		return true
	}
	return commandReadOnly(s.Cmd)
}

func commandReadOnly(cmd syntax.Command) bool {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return callReadOnly(c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			return stmtReadOnly(c.X) && stmtReadOnly(c.Y)
		}
		return false
	case *syntax.Subshell:
		return stmtsReadOnly(c.Stmts)
	case *syntax.Block:
		return stmtsReadOnly(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			if !stmtsReadOnly(c.Cond) || !stmtsReadOnly(c.Then) {
				return false
			}
		}
		return true
	case *syntax.WhileClause:
		return stmtsReadOnly(c.Cond) && stmtsReadOnly(c.Do)
	case *syntax.ForClause:
		it, ok := c.Loop.(*syntax.WordIter)
		if !ok || c.Select { // C-style loops are arithmetic; select reads the terminal
			return false
		}
		return wordsReadOnly(it.Items) && stmtsReadOnly(c.Do)
	case *syntax.CaseClause:
		if !wordReadOnly(c.Word) {
			return false
		}
		for _, item := range c.Items {
			if !wordsReadOnly(item.Patterns) || !stmtsReadOnly(item.Stmts) {
				return false
			}
		}
		return true
	case *syntax.TimeClause:
		return c.Stmt == nil || stmtReadOnly(c.Stmt)
	case *syntax.TestClause:
		return testReadOnly(c.X)
	}
	// Function definitions, declare/export/local, let, ((...)), coproc:
	// each changes shell state or evaluates arithmetic, where bash expands
	// array subscripts and so can run commands.
	return false
}

// testReadOnly checks a [[ ... ]] expression.
func testReadOnly(e syntax.TestExpr) bool {
	switch x := e.(type) {
	case *syntax.Word:
		return wordReadOnly(x)
	case *syntax.ParenTest:
		return testReadOnly(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			return false // -v a[$(cmd)] evaluates the subscript
		}
		return testReadOnly(x.X)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			// [[ evaluates both operands as arithmetic, and arithmetic
			// evaluates array subscripts: only plain integers are safe.
			return isIntegerWord(x.X) && isIntegerWord(x.Y)
		}
		return testReadOnly(x.X) && testReadOnly(x.Y)
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

// Redirection targets that receive output without it landing in a file.
var harmlessTargets = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

func redirectReadOnly(r *syntax.Redirect) bool {
	if r.N != nil && !isDigits(r.N.Value) {
		return false // {var}>file assigns a variable
	}
	if r.Word != nil && !wordReadOnly(r.Word) {
		return false
	}
	if r.Hdoc != nil && !wordReadOnly(r.Hdoc) {
		return false // an unquoted here-document expands its body
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplIn, syntax.DplOut:
		// 2>&1 and 3>&- duplicate or close descriptors; >&file writes a file.
		t := analyze(r.Word)
		return t.exact && (isDigits(t.text) || t.text == "-")
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		t := analyze(r.Word)
		return t.exact && harmlessTargets[t.text]
	}
	return false // <> opens for writing; zsh forms
}

func wordsReadOnly(ws []*syntax.Word) bool {
	for _, w := range ws {
		if !wordReadOnly(w) {
			return false
		}
	}
	return true
}

// wordReadOnly reports whether expanding w runs nothing that is not itself
// read-only and changes no shell state.
func wordReadOnly(w *syntax.Word) bool {
	return partsReadOnly(w.Parts)
}

func partsReadOnly(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted, *syntax.ExtGlob:
		case *syntax.DblQuoted:
			if !partsReadOnly(p.Parts) {
				return false
			}
		case *syntax.ParamExp:
			if !paramReadOnly(p) {
				return false
			}
		case *syntax.CmdSubst:
			if p.TempFile || p.ReplyVar || !stmtsReadOnly(p.Stmts) {
				return false
			}
		case *syntax.ProcSubst:
			// >(cmd) hands cmd a path to write to: fail closed.
			if p.Op != syntax.CmdIn || !stmtsReadOnly(p.Stmts) {
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
func paramReadOnly(p *syntax.ParamExp) bool {
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
		return p.Exp.Word == nil || wordReadOnly(p.Exp.Word)
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
	return v.exact
}

func callReadOnly(c *syntax.CallExpr) bool {
	for _, as := range c.Assigns {
		if !assignReadOnly(as) {
			return false
		}
	}
	if len(c.Args) == 0 {
		return true
	}
	if !wordsReadOnly(c.Args) {
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
	return check(args)
}
