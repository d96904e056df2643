package shell

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// lineGen generates bash command lines from a small grammar: simple
// commands of the oracle's stub programs with words quoted every way,
// lists, pipelines, compound commands, substitutions, comments and
// here-documents of every kind, joined by LF, CRLF or a lone CR, with
// backslash-newline continuations dropped in at random byte positions.
// The same seed gives the same lines. It writes no absolute path, no
// tilde and no parent directory.
type lineGen struct {
	r     *rand.Rand
	depth int
}

func newLineGen(seed uint64) *lineGen {
	return &lineGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *lineGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *lineGen) chance(n int) bool        { return g.r.IntN(n) == 0 }

// line returns one command line.
func (g *lineGen) line() string {
	g.depth = 0
	var b strings.Builder
	for i, n := 0, 1+g.r.IntN(3); i < n; i++ {
		switch {
		case i == 0:
		case strings.HasSuffix(b.String(), "\n"): // after a here-document
			b.WriteString(g.pick("", "", "\n", "\r\n"))
		default:
			sep := g.pick("\n", "\n", "\n", "; ", "; ", " && ", " || ", " | ", " | ")
			if strings.HasSuffix(sep, "\n") && g.chance(3) {
				sep = g.comment() + sep
			}
			b.WriteString(sep)
			if g.chance(16) {
				b.WriteString(g.pick("\r\n", "\r"))
			}
		}
		b.WriteString(g.command())
	}
	if g.chance(4) {
		b.WriteString(g.comment())
	}
	s := b.String()
	if g.chance(4) {
		s = g.continuations(s)
	}
	return s
}

// term ends a command inside a compound command: a here-document
// already ends in a newline.
func term(cmd string) string {
	if strings.HasSuffix(cmd, "\n") {
		return cmd
	}
	return cmd + "; "
}

// comment is a comment to put at the end of a line.
func (g *lineGen) comment() string {
	return g.pick(" #", " # ", "#", "\t# ") + g.pick("", "note", "x\\", "$(rm c)", "'", "rm x; ls")
}

// continuation inserts one backslash-newline pair at a random byte
// position of s.
func (g *lineGen) continuation(s string) string {
	at := g.r.IntN(len(s) + 1)
	return s[:at] + "\\\n" + s[at:]
}

// continuations inserts backslash-newline pairs at random byte positions.
func (g *lineGen) continuations(s string) string {
	for i, n := 0, 1+g.r.IntN(3); i < n; i++ {
		s = g.continuation(s)
	}
	return s
}

func (g *lineGen) command() string {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 3 {
		return g.simple()
	}
	switch g.r.IntN(17) {
	case 0, 1, 2:
		return g.heredoc()
	case 3:
		return "{ " + term(g.command()) + "}"
	case 4:
		return "( " + g.command() + " )"
	case 5:
		return "if " + g.simple() + "; then " + term(g.command()) + g.pick("fi", "else "+term(g.command())+"fi")
	case 6:
		return "for v in " + g.word() + " " + g.word() + "; do " + term(g.command()) + "done"
	case 7:
		return "case " + g.word() + " in " + g.pick("a", "*", "x|y", "'a'") + ") " + g.command() + ";; " +
			g.pick("", "*) "+g.command()+";; ") + "esac"
	case 8:
		open := g.pick("\"$(", "$(", "`", "<(", "\"`")
		return g.simple() + " " + open + g.command() + g.closer(open)
	case 9:
		// Names differ by depth, so that no function calls itself.
		f := "f" + strconv.Itoa(g.depth)
		return f + g.pick("", "n") + "() { " + term(g.command()) + "}; " + f + g.pick("", "n")
	case 10:
		return g.pick("(( 1 + 2 )) && ", "[[ a == b ]] || ", "true && ", "false || ", "! ") + g.command()
	case 11:
		f := "g" + strconv.Itoa(g.depth)
		return "function " + f + g.pick(" ", "() ") + "{ " + term(g.command()) + "}; " + f
	case 12:
		return g.pick("time ", "time -p ", "! ", "{ ", "until true; do ") + g.command() + g.pick("", "", "", "; }", "; done")
	case 13:
		return "[[ " + g.word() + g.pick(" == ", " < ", " =~ ", " -nt ") + g.word() + " ]] && " + g.command()
	}
	return g.simple()
}

// closer ends the substitution open opened; now and then it does not
// match, which is an input too.
func (g *lineGen) closer(open string) string {
	if g.chance(6) {
		return g.pick(")", ")\"", "`", "`\"")
	}
	return map[string]string{"\"$(": ")\"", "$(": ")", "`": "`", "<(": ")", "\"`": "`\""}[open]
}

func (g *lineGen) simple() string {
	var b strings.Builder
	if g.chance(8) {
		b.WriteString(g.pick("A=1 ", "B='x y' ", "C=$'\\n' "))
	}
	b.WriteString(g.name())
	for i, n := 0, g.r.IntN(4); i < n; i++ {
		b.WriteString(g.pick(" ", " ", "\t", "  "))
		b.WriteString(g.word())
	}
	if g.chance(5) {
		b.WriteString(g.pick(" >out", " 2>&1", " >>out", " 2>err", " <<<"+g.word()))
	}
	return b.String()
}

// name is a program name, sometimes quoted or escaped, which bash still
// looks up as the plain name.
func (g *lineGen) name() string {
	n := stubNames[g.r.IntN(len(stubNames))]
	switch g.r.IntN(8) {
	case 0:
		return "'" + n + "'"
	case 1:
		return "\"" + n[:1] + "\"" + n[1:]
	case 2:
		return "\\" + n
	case 3:
		return g.pick("echo", "true", ":", "test", "printf")
	}
	return n
}

var genAtoms = []string{
	"x", "a b", "-rf", "--", "-n", "z*", "?q", "[ab]c", "é", "\u00a0", "\x01", "\t", "$x", "${x:-rm}",
	"#", "a#b", "l\nm", "$[1]", "}", "{", "]", "!", "=", "EOF", "rm", "\r", "\\", "'", "\"", "`", "$", "(", ")", ";", "&", "|", "<", ">",
}

// word is one argument word, quoted in one of bash's ways.
func (g *lineGen) word() string {
	a := genAtoms[g.r.IntN(len(genAtoms))]
	switch g.r.IntN(9) {
	case 0:
		return "'" + strings.ReplaceAll(a, "'", "") + "'"
	case 1:
		return "\"" + strings.NewReplacer("\"", "\\\"", "`", "\\`", "$", "\\$", "\\", "\\\\").Replace(a) + "\""
	case 2:
		return "$'" + strings.NewReplacer("'", "\\'", "\\", "\\\\").Replace(a) + g.pick("", "\\n", "\\x41", "\\'") + "'"
	case 3:
		return "\\" + a
	case 4:
		return "$((" + g.pick("1+2", "3*4", "1?2:3") + "))"
	case 5:
		return "$(" + g.simple() + ")"
	}
	if strings.ContainsAny(a, "`$;&|<>()'\"\\ \t#{}!") && a != "$x" && a != "${x:-rm}" {
		return "\\" + a
	}
	return a
}

// heredoc is a command with a here-document: unquoted, quoted in part
// or whole, with <<-, with a body of text, command-like lines, lines
// ending in backslashes, substitutions left open and near-delimiters.
func (g *lineGen) heredoc() string {
	delim := g.pick("EOF", "E", "END", "x")
	op := g.pick("<<", "<<", "<<-", "<< ")
	word := delim
	switch g.r.IntN(6) {
	case 0:
		word = "'" + delim + "'"
	case 1:
		word = "\"" + delim + "\""
	case 2:
		word = "\\" + delim
	case 3:
		word = delim[:1] + "'" + delim[1:] + "'"
	}
	var b strings.Builder
	b.WriteString(g.simple() + " " + op + word)
	if g.chance(3) {
		b.WriteString(g.pick(" | "+g.simple(), " && "+g.simple(), "; "+g.simple(), " "+g.word()))
	}
	b.WriteString(g.pick("\n", "\n", "\r\n"))
	for i, n := 0, g.r.IntN(4); i < n; i++ {
		l := g.bodyLine(delim)
		if g.chance(3) {
			l = g.continuation(l)
		}
		b.WriteString(l + "\n")
	}
	if op == "<<-" {
		b.WriteString(g.pick("", "\t", "\t\t"))
	}
	b.WriteString(delim + "\n")
	return b.String()
}

func (g *lineGen) bodyLine(delim string) string {
	switch g.r.IntN(10) {
	case 0:
		return g.simple()
	case 1:
		return "\t" + delim
	case 2:
		return delim + g.pick(" ", "\r", "\\")
	case 3:
		return g.word() + "\\"
	case 4:
		return g.pick("$(", "`", "${x", "$((", "\"") + g.pick("", " "+g.simple())
	case 5:
		return g.pick(")", "`", "}", "))")
	case 6:
		return delim
	case 7:
		return g.word() + g.pick("\\\\", "\\\\\\")
	}
	return g.word() + " " + g.word()
}

// mutate changes a corpus line at random: a token put in, a span cut
// out, a line doubled or two lines swapped.
func (g *lineGen) mutate(s string) string {
	for i, n := 0, 1+g.r.IntN(3); i < n; i++ {
		switch g.r.IntN(4) {
		case 0:
			at := g.r.IntN(len(s) + 1)
			s = s[:at] + g.pick("\\\n", "\n", "'", "\"", "\\", "#", "$(", ")", "`", "<<", "EOF", ";", "\r", "\t", " ",
				"rm x", "\\\\", "<<-", "\\\r\n") + s[at:]
		case 1:
			if len(s) > 1 {
				at := g.r.IntN(len(s) - 1)
				end := at + 1 + g.r.IntN(min(4, len(s)-at-1)+1)
				s = s[:at] + s[min(end, len(s)):]
			}
		case 2, 3:
			lines := strings.Split(s, "\n")
			i, j := g.r.IntN(len(lines)), g.r.IntN(len(lines))
			if g.r.IntN(4) == 2 {
				lines = append(lines[:i+1], lines[i:]...)
			} else {
				lines[i], lines[j] = lines[j], lines[i]
			}
			s = strings.Join(lines, "\n")
		}
	}
	return s
}
