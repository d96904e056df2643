package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is what static analysis knows about one shell word before the shell
// expands it.
type word struct {
	// text is the value after quote removal when exact. Otherwise it is the
	// literal prefix before the first part whose value is not known
	// statically: the only part of the value a checker may rely on.
	text string
	// exact reports that text is exactly the argument the program receives.
	exact bool
	// written is the whole word after quote removal with unquoted glob
	// characters and tildes kept as written. It is meaningful only when
	// expands is false.
	written string
	// expands reports a part whose value is computed at run time: a
	// parameter, command, arithmetic or process substitution, a brace
	// expansion, $'...' or $"..." quoting, an extended glob.
	expands bool
	// globOnly reports that the word is inexact only because of unquoted
	// glob characters (and tildes); pattern then holds it as a path.Match
	// pattern, with quoted characters escaped.
	globOnly bool
	pattern  string
	// pathStart reports that the first inexact part always expands to a
	// path (a leading tilde, a process substitution), never to an option.
	pathStart bool
}

// mayBeOption reports whether the word may expand to something a program
// would take as an option: its value is not known and its known prefix is
// empty or starts with '-'.
func (w *word) mayBeOption() bool {
	if w.exact {
		return strings.HasPrefix(w.text, "-")
	}
	if w.text == "" {
		return !w.pathStart
	}
	return w.text[0] == '-'
}

// analyzer accumulates a word part by part.
type analyzer struct {
	w       word
	text    strings.Builder
	written strings.Builder
	pattern strings.Builder
	inexact bool // a part with a run-time value was seen; text is frozen
	rest    []syntax.WordPart
}

func analyze(sw *syntax.Word) word {
	a := analyzer{w: word{exact: true, globOnly: true}}
	for i, part := range sw.Parts {
		a.rest = sw.Parts[i+1:]
		switch p := part.(type) {
		case *syntax.Lit:
			a.unquoted(p.Value, i == 0)
		case *syntax.SglQuoted:
			if p.Dollar {
				a.dynamic(false) // $'...' escapes: decoding them is not worth the risk
			} else {
				a.quoted(p.Value)
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				a.dynamic(false) // $"..." is translated at run time
				continue
			}
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					a.quoted(unescapeDouble(l.Value))
				} else {
					a.dynamic(false)
				}
			}
		case *syntax.ProcSubst:
			a.dynamic(true) // expands to a /dev/fd path
		default:
			a.dynamic(false)
		}
	}
	a.w.text = a.text.String()
	a.w.written = a.written.String()
	a.w.pattern = a.pattern.String()
	if a.w.exact || a.w.expands {
		a.w.globOnly = false
	}
	return a.w
}

// freeze marks the end of the statically known prefix.
func (a *analyzer) freeze(pathStart bool) {
	if !a.inexact && a.text.Len() == 0 {
		a.w.pathStart = pathStart
	}
	a.inexact = true
	a.w.exact = false
}

func (a *analyzer) dynamic(pathStart bool) {
	a.freeze(pathStart)
	a.w.expands = true
}

func (a *analyzer) glob(c byte) {
	a.freeze(false)
	a.written.WriteByte(c)
}

func (a *analyzer) lit(s string) {
	if !a.inexact {
		a.text.WriteString(s)
	}
	a.written.WriteString(s)
}

func (a *analyzer) quoted(s string) {
	a.lit(s)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
			a.pattern.WriteByte('\\')
		}
		a.pattern.WriteByte(s[i])
	}
}

// unquoted handles an unquoted literal, where backslashes escape, glob
// characters match file names, braces may expand and a leading tilde names
// a home directory.
func (a *analyzer) unquoted(s string, first bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' { // backslash-newline is a line continuation
					a.quoted(s[i : i+1])
				}
			} else {
				a.quoted(`\`)
			}
		case c == '*' || c == '?':
			a.glob(c)
			a.pattern.WriteByte(c)
		case c == '[' && closesLater(s[i+1:], a.rest, ']'):
			a.glob(c)
			a.pattern.WriteByte(c)
			if i+1 < len(s) && s[i+1] == '!' {
				// bash negates with [! as well as [^; path.Match only knows [^.
				i++
				a.pattern.WriteByte('^')
				a.written.WriteByte('!')
			}
			if i+1 < len(s) && strings.IndexByte(":=.", s[i+1]) >= 0 {
				// Character classes ([[:alpha:]]) mean something else to
				// path.Match: give up on matching the pattern.
				a.w.expands = true
			}
		case c == '{' && i+1 < len(s) && s[i+1] == '}':
			// An empty pair is not a brace expansion: find and xargs
			// receive "{}" as written.
			a.lit("{}")
			a.pattern.WriteString(`\{\}`)
			i++
		case c == '{' && closesLater(s[i+1:], a.rest, '}'):
			// Brace expansion can turn {-delete,} into -delete: the value is
			// not known, and no pattern describes it.
			a.dynamic(false)
			a.written.WriteByte(c)
		case c == '~' && i == 0 && first:
			a.freeze(true)
			a.written.WriteByte(c)
			a.pattern.WriteByte(c)
		default:
			a.lit(s[i : i+1])
			a.pattern.WriteByte(c)
		}
	}
}

// closesLater reports whether an unescaped, unquoted c occurs in s or in a
// later unquoted literal of the same word.
func closesLater(s string, rest []syntax.WordPart, c byte) bool {
	if unescapedIndex(s, c) >= 0 {
		return true
	}
	for _, p := range rest {
		if l, ok := p.(*syntax.Lit); ok && unescapedIndex(l.Value, c) >= 0 {
			return true
		}
	}
	return false
}

func unescapedIndex(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case c:
			return i
		}
	}
	return -1
}

// unescapeDouble removes the backslashes that escape inside double quotes:
// only before $, `, ", \ and newline (the last pair disappears entirely).
func unescapeDouble(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
