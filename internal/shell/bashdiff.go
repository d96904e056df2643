package shell

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"
)

// The parser and bash read a few constructs differently, and where they
// do, the parser can see a command line that is not the one bash runs: a
// command bash runs can sit, for the parser, inside a here-document body,
// a comment or a word. A differential test against bash finds these
// (bashdiff_test.go); checkBashAgrees makes a line holding one of them
// fail as a parse error, so that it is opaque, never read-only and
// covered by no allow rule. The constructs:
//
//   - A carriage return. bash reads it as an ordinary character of a
//     word; the parser drops it before a line feed (even inside quotes,
//     so backslash, CR, LF continues the line for it alone) and reads a
//     lone one as a blank, after which # starts a comment.
//   - A NUL byte. The parser skips it; bash -c cannot be given one.
//   - A here-document whose body ends elsewhere for bash. bash reads the
//     body line by line, joining a line that ends in an unescaped
//     backslash with the next (unquoted delimiter only), strips leading
//     tabs for <<- and ends at the first line equal to the delimiter;
//     the joined lines are then expanded, so the join reaches into
//     quotes within substitutions. The parser does not always join, never
//     inside such quotes, and parses substitutions in the body across
//     lines, past a delimiter line. Any join fails closed, and so does a
//     here-document inside backquotes, which bash ends at the next
//     backquote, in the body or not.
//   - A dollar sign before a backslash-newline. bash removes the pair
//     first and reads $( ${ $' after it; the parser reads a lone $.
//   - A backslash at the very end. bash drops it after a single-quoted
//     string that spans lines; the parser keeps it.
//   - time after a pipe. bash runs a program named time there; the
//     parser reads the keyword.
//   - A comment ending in a backslash. bash ends a comment at the line
//     end; the parser reads the backslash and newline as a continuation
//     and joins the next line to the command before the comment.

// disagreement is why bash and the parser read a command line differently.
type disagreement struct{ reason string }

func (d *disagreement) Error() string { return d.reason }

// bashAgreementUnchecked switches the check off: the differential test
// does, to see what it finds against the parser alone.
var bashAgreementUnchecked atomic.Bool

// checkBashAgrees returns an error wrapping ErrParse when src, parsed as
// f, holds a construct bash reads differently.
func checkBashAgrees(src string, f *syntax.File) error {
	if bashAgreementUnchecked.Load() {
		return nil
	}
	reason := bytesDisagree(src)
	if reason == "" {
		reason = heredocsDisagree(src, f)
	}
	if reason == "" {
		reason = timeDisagrees(f) // a continuation can split the word: no text filter
	}
	if reason == "" {
		reason = commentsDisagree(src)
	}
	if reason == "" {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrParse, &disagreement{reason})
}

// parseFailure is Opaque's reason for a command that did not parse.
func parseFailure(err error) string {
	if d, ok := errors.AsType[*disagreement](err); ok {
		return d.reason
	}
	return "the command does not parse"
}

func bytesDisagree(src string) string {
	switch {
	case strings.IndexByte(src, '\r') >= 0:
		return "the command holds a carriage return, which bash reads as part of a word and ply's parser as a line end or a blank"
	case strings.IndexByte(src, 0) >= 0:
		return "the command holds a NUL byte, which ply's parser skips and bash cannot be given"
	case endsInBackslash(src):
		return "the command ends in a backslash, which bash keeps or drops by context and ply's parser keeps"
	case strings.Contains(src, "$\\\n"):
		return "a dollar sign is followed by a line continuation, after which bash still reads an expansion and ply's parser does not"
	}
	return ""
}

// endsInBackslash reports src ending in a backslash that no backslash
// escapes. bash drops it after a single-quoted string that spans lines.
func endsInBackslash(src string) bool {
	n := len(src) - len(strings.TrimRight(src, "\\"))
	return n%2 == 1
}

// heredocsDisagree checks that bash ends every here-document body where
// the parser does.
func heredocsDisagree(src string, f *syntax.File) (reason string) {
	var backquoted [][2]uint
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CmdSubst); ok && c.Backquotes {
			backquoted = append(backquoted, [2]uint{c.Pos().Offset(), c.End().Offset()})
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if ok && reason == "" && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && within(r.Pos().Offset(), backquoted) {
			// bash takes the backquoted text to the next backquote
			// first, here-document body or not.
			reason = "a here-document inside backquotes, which bash ends at the next backquote and ply's parser does not"
			return false
		}
		if reason != "" || !ok || (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.Hdoc == nil {
			// Without a body the parser found the delimiter on the
			// first line, which bash reads alike: an unquoted
			// delimiter holds no backslash to join lines with.
			return reason == ""
		}
		delim, quoted, ok := heredocDelimiter(src[r.Word.Pos().Offset():r.Word.End().Offset()])
		if !ok {
			reason = "a here-document delimiter holds an expansion, which bash does not expand"
			return false
		}
		end, joined := bashHeredocEnd(src, int(r.Hdoc.Pos().Offset()), delim, !quoted, r.Op == syntax.DashHdoc)
		switch {
		case joined:
			// bash joins the lines before it expands the body, even
			// inside quotes within a substitution; the parser does not.
			reason = "a here-document line ends in a backslash, which bash and ply's parser read differently"
		case end != int(r.Hdoc.End().Offset()):
			reason = "a here-document ends elsewhere for bash than for ply's parser (a substitution spans the delimiter)"
		}
		return reason == ""
	})
	return reason
}

// within reports whether offset lies in one of the ranges.
func within(offset uint, ranges [][2]uint) bool {
	for _, r := range ranges {
		if offset >= r[0] && offset < r[1] {
			return true
		}
	}
	return false
}

// heredocDelimiter returns the delimiter bash compares body lines with:
// the word as written, after quote removal, and whether any part was
// quoted (which keeps the body as written). A word with an expansion is
// refused: what the parser makes of it is not worth trusting.
func heredocDelimiter(raw string) (delim string, quoted, ok bool) {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '$', '`':
			return "", false, false
		case '\\':
			if i+1 < len(raw) && raw[i+1] == '\n' { // a continuation, gone before the word is read
				i++
				continue
			}
			quoted = true
			if i+1 < len(raw) {
				i++
				b.WriteByte(raw[i])
			}
		case '\'':
			j := strings.IndexByte(raw[i+1:], '\'')
			if j < 0 {
				return "", false, false
			}
			quoted = true
			b.WriteString(raw[i+1 : i+1+j])
			i += j + 1
		case '"':
			quoted = true
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' && i+1 < len(raw) && strings.IndexByte("$`\"\\\n", raw[i+1]) >= 0 {
					i++
					if raw[i] == '\n' {
						continue
					}
				}
				b.WriteByte(raw[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), quoted, true
}

// bashHeredocEnd returns the offset in src at which bash's reading of a
// here-document body that starts at start ends: the end of the
// delimiter line, or the end of src when no line matches. With join, a
// backslash escapes the next byte and a backslash before a newline joins
// the lines, and joined reports whether any did; with dash, leading tabs
// are stripped before the comparison.
func bashHeredocEnd(src string, start int, delim string, join, dash bool) (end int, joined bool) {
	var line []byte
	for i := start; i < len(src); {
		line = line[:0]
		j := i
		for j < len(src) && src[j] != '\n' {
			if join && src[j] == '\\' && j+1 < len(src) {
				if src[j+1] != '\n' {
					line = append(line, src[j], src[j+1])
				} else {
					joined = true
				}
				j += 2
				continue
			}
			line = append(line, src[j])
			j++
		}
		l := string(line)
		if dash {
			l = strings.TrimLeft(l, "\t")
		}
		if l == delim {
			return j, joined
		}
		i = j + 1
	}
	return len(src), joined
}

// timeDisagrees reports time in a pipeline after its first command:
// there bash does not read it as the keyword but runs a program named
// time, with options the keyword does not have (-o file).
func timeDisagrees(f *syntax.File) (reason string) {
	if f == nil {
		return ""
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		b, ok := n.(*syntax.BinaryCmd)
		if ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && b.Y != nil {
			if _, isTime := b.Y.Cmd.(*syntax.TimeClause); isTime {
				reason = "time after a pipe is a program for bash and a keyword for ply's parser"
			}
		}
		return reason == ""
	})
	return reason
}

// commentParsers keep comments, which the classifier's parsers drop.
var commentParsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

// commentsDisagree reports a comment that the parser continues past a
// backslash at the end of its line, where bash ends it.
func commentsDisagree(src string) (reason string) {
	if !strings.Contains(src, "#") || !strings.Contains(src, "\\\n") {
		return ""
	}
	p := commentParsers.Get().(*syntax.Parser)
	defer commentParsers.Put(p)
	f, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		return "the command does not parse with its comments kept"
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok || reason != "" {
			return reason == ""
		}
		at := int(c.Hash.Offset())
		nl := strings.IndexByte(src[at:], '\n')
		if nl > 0 && src[at+nl-1] == '\\' {
			reason = "a comment ends in a backslash, which ply's parser reads as joining the next line and bash does not"
		}
		return reason == ""
	})
	return reason
}
