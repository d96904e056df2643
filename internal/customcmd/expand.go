package customcmd

import (
	"strconv"
	"strings"
	"unicode"
)

// Expansion is a command's body with its arguments put in: text, and the
// shell commands (!`cmd` or !{cmd}) whose output goes where they stood.
type Expansion struct {
	pieces []piece
}

type piece struct {
	text  string
	shell bool
}

// Expand puts args into c's body.
func (c *Command) Expand(args string) Expansion { return Expand(c.Body, args) }

// Expand puts args into body: $ARGUMENTS (and {{args}}) become args
// whole, $1, $2… its words (quotes group words, as a shell's do; a
// missing one is empty). Inside a shell command the values are quoted
// for the shell, so that arguments stay data. A body that takes no
// arguments gets them appended after a blank line, so nothing typed is
// lost.
func Expand(body, args string) Expansion {
	args = strings.TrimSpace(args)
	x := expander{args: args, words: splitWords(args)}
	var e Expansion
	text := func(s string) {
		if s != "" {
			e.pieces = append(e.pieces, piece{text: x.subst(s, false)})
		}
	}
	for {
		i, j, cmd := nextShell(body)
		if i < 0 {
			text(body)
			break
		}
		text(body[:i])
		e.pieces = append(e.pieces, piece{text: x.subst(cmd, true), shell: true})
		body = body[j:]
	}
	if !x.used && args != "" {
		e.pieces = append(e.pieces, piece{text: "\n\n" + args})
	}
	return e
}

// Commands lists the shell commands, in order.
func (e Expansion) Commands() []string {
	var out []string
	for _, p := range e.pieces {
		if p.shell {
			out = append(out, p.text)
		}
	}
	return out
}

// Fill returns the prompt with the shell commands replaced by outputs,
// one per command in the order Commands lists them (a missing one is
// empty).
func (e Expansion) Fill(outputs []string) string {
	var b strings.Builder
	n := 0
	for _, p := range e.pieces {
		if !p.shell {
			b.WriteString(p.text)
			continue
		}
		if n < len(outputs) {
			b.WriteString(outputs[n])
		}
		n++
	}
	return b.String()
}

// nextShell finds the first !`cmd` or !{cmd} in s: where it starts, where
// it ends, and the command. Braces nest; an unclosed one is text.
func nextShell(s string) (start, end int, cmd string) {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '!')
		if k < 0 || off+k+1 >= len(s) {
			return -1, -1, ""
		}
		i := off + k
		switch s[i+1] {
		case '`':
			if c := strings.IndexByte(s[i+2:], '`'); c > 0 {
				return i, i + 2 + c + 1, s[i+2 : i+2+c]
			}
		case '{':
			depth := 0
			for j := i + 1; j < len(s); j++ {
				switch s[j] {
				case '{':
					depth++
				case '}':
					depth--
					if depth == 0 && j > i+2 {
						return i, j + 1, s[i+2 : j]
					}
				}
				if depth == 0 {
					break
				}
			}
		}
		off = i + 1
	}
}

type expander struct {
	args  string
	words []string
	used  bool
}

// subst replaces the placeholders in s; quoted, the values are quoted for
// a POSIX shell.
func (x *expander) subst(s string, quoted bool) string {
	val := func(v string) string {
		x.used = true
		if quoted {
			return shellQuote(v)
		}
		return v
	}
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "$ARGUMENTS"):
			b.WriteString(val(x.args))
			s = s[len("$ARGUMENTS"):]
		case strings.HasPrefix(s, "{{args}}"):
			b.WriteString(val(x.args))
			s = s[len("{{args}}"):]
		case len(s) > 1 && s[0] == '$' && '1' <= s[1] && s[1] <= '9':
			n := 2
			for n < len(s) && n < 4 && '0' <= s[n] && s[n] <= '9' {
				n++
			}
			k, _ := strconv.Atoi(s[1:n])
			v := ""
			if k <= len(x.words) {
				v = x.words[k-1]
			}
			b.WriteString(val(v))
			s = s[n:]
		default:
			b.WriteByte(s[0])
			s = s[1:]
		}
	}
}

// splitWords splits args at blanks; single or double quotes group words
// and are removed.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
