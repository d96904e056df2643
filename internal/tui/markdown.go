package tui

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders replies: headings, emphasis, inline code, fenced code
// blocks (with a small keyword highlighter), lists, quotes and rules,
// wrapped to the width. It is small on purpose: a full renderer with a
// syntax highlighter runs package initialisers at every start of ply,
// headless runs included, which tripled startup time and doubled memory.
//
// Rendering is line by line with a little state (inside a fence or not),
// so a reply can be rendered as it streams: each finished line once, and
// only the open last line again per chunk (see mdStream).
// Tables are the exception: their rows are held until the table ends
// (see mdtable.go).
type markdown struct {
	noColor bool
	bold    lipgloss.Style
	italic  lipgloss.Style
	code    lipgloss.Style
	heading lipgloss.Style
	// h1 is a first-level heading's style; without colour an underline
	// of ═ sets it apart instead.
	h1     lipgloss.Style
	strike lipgloss.Style
	// linkOn and linkOff surround a link's text (see links).
	linkOn, linkOff string
	quote           lipgloss.Style
	rule            lipgloss.Style
	hl              highlighter
}

func newMarkdown(noColor bool) *markdown {
	md := &markdown{noColor: noColor, hl: newHighlighter(noColor)}
	if !noColor {
		md.bold = lipgloss.NewStyle().Bold(true)
		md.italic = lipgloss.NewStyle().Italic(true)
		md.code = lipgloss.NewStyle().Foreground(lipgloss.Color("215"))
		md.heading = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("75"))
		md.h1 = lipgloss.NewStyle().Bold(true).Underline(true).Foreground(lipgloss.Color("81"))
		md.strike = lipgloss.NewStyle().Strikethrough(true)
		md.linkOn, md.linkOff = sgrAround(lipgloss.NewStyle().Underline(true).Foreground(lipgloss.Color("75")).Render)
		md.quote = lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
		md.rule = lipgloss.NewStyle().Foreground(lipgloss.Color("240"))
	}
	return md
}

// The markdown patterns are compiled on first use: a process that never
// renders markdown (headless, --version) does not pay for them.
var (
	boldRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`) })
	italicRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[\s(])[*_]([^*_\s][^*_\n]*)[*_]`) })
	codeRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`\n]+)`") })
	strikeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`~~([^~\n]+)~~`) })
	headRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#{1,6})\s+(.*)$`) })
	bulletRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`) })
	numRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)(\d{1,9}[.)])\s+(.*)$`) })
	ruleRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([-*_])(\s*([-*_]))(\s*([-*_]))+\s*$`) })
	tableSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`) })
	// tableDelim is a table's delimiter row, as GFM has it: one dash a
	// cell is enough.
	tableDelim = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`) })
)

// render renders a whole text at width: what streaming it would give.
func (md *markdown) render(text string, width int) string {
	s := md.stream(width)
	lines := s.write(text)
	lines = append(lines, s.end()...)
	return strings.Join(lines, "\n")
}

// mdState is what rendering a line needs to know of the lines before it.
type mdState struct {
	fence string // the fence's marker (``` or ~~~) while inside one
	lang  string
}

// maxOpenLine bounds the open line of a stream: a longer line is cut (at
// a space when there is one) and its first part rendered, so that a reply
// without newlines does not make every chunk re-render all of it.
const maxOpenLine = 2048

// mdStream renders one reply as it arrives. write returns the rendered
// lines its text completed; view is the open line, rendered once per
// change; end renders what is left.
type mdStream struct {
	md     *markdown
	width  int
	st     mdState
	open   strings.Builder
	blanks bool // a blank line is owed before the next one
	any    bool // a line was emitted
	tail   string
	tailOK bool

	// A row that may be a table's header, until the next line says.
	cand    string
	hasCand bool
	// The table being held: its rows (header first when header), and
	// its columns' alignment.
	inTable bool
	header  bool
	rows    [][]string
	align   []byte
}

func (md *markdown) stream(width int) *mdStream {
	return &mdStream{md: md, width: width}
}

// write adds text and returns the lines it completed, rendered.
func (s *mdStream) write(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			s.open.WriteString(text)
			s.tailOK = false
			break
		}
		var line string
		if s.open.Len() == 0 {
			line = text[:i]
		} else {
			s.open.WriteString(text[:i])
			line = s.open.String()
			s.open.Reset()
		}
		text = text[i+1:]
		s.tailOK = false
		for len(line) > maxOpenLine {
			var head string
			head, line = cutLong(line)
			out = s.emit(out, head)
		}
		out = s.emit(out, line)
	}
	for s.open.Len() > maxOpenLine {
		head, rest := cutLong(s.open.String())
		out = s.emit(out, head)
		s.open.Reset()
		s.open.WriteString(rest)
	}
	return out
}

// end renders the open line and resets the stream.
func (s *mdStream) end() []string {
	var out []string
	if s.open.Len() > 0 {
		out = s.emit(out, s.open.String())
	}
	out = s.flushHeld(out)
	*s = mdStream{md: s.md, width: s.width}
	return out
}

// view renders the open line as it would be committed (without the blank
// line it may owe), after the lines held back: a table's rows so far or
// a possible header row.
func (s *mdStream) view() string {
	if s.tailOK {
		return s.tail
	}
	st := s.st
	open := s.open.String()
	var lines []string
	switch {
	case s.inTable:
		rows := s.rows
		if tableRow(open) {
			rows = append(rows[:len(rows):len(rows)], splitRow(open))
			open = ""
		}
		lines = s.md.table(rows, s.align, s.header, s.width)
	case s.hasCand:
		lines = s.md.line(nil, &st, s.cand, s.width)
	}
	if open != "" || len(lines) == 0 {
		lines = s.md.line(lines, &st, open, s.width)
	}
	s.tail = strings.Join(lines, "\n")
	s.tailOK = true
	return s.tail
}

// emit takes one source line. Outside code, a line with a cell separator
// is held until the next shows whether it heads a table (a separator row
// follows); a table's rows are held until a line that is not one.
func (s *mdStream) emit(out []string, line string) []string {
	if s.st.fence != "" {
		return s.emitLine(out, line)
	}
	switch {
	case s.inTable:
		if tableRow(line) {
			s.rows = append(s.rows, splitRow(line))
			if len(s.rows) >= maxTableRows {
				out = s.flushHeld(out)
				s.inTable, s.header = true, false
			}
			return out
		}
		out = s.flushHeld(out)
	case s.hasCand:
		if strings.Contains(line, "|") && tableDelim().MatchString(line) {
			s.hasCand = false
			s.inTable, s.header, s.align = true, true, alignments(line)
			s.rows = [][]string{splitRow(s.cand)}
			return out
		}
		out = s.flushHeld(out)
	}
	if tableRow(line) {
		s.cand, s.hasCand = line, true
		return out
	}
	return s.emitLine(out, line)
}

// flushHeld renders what is held back: the table, or the row that did
// not head one.
func (s *mdStream) flushHeld(out []string) []string {
	switch {
	case s.inTable:
		out = s.put(out, s.md.table(s.rows, s.align, s.header, s.width))
		s.inTable, s.rows = false, nil
	case s.hasCand:
		s.hasCand = false
		out = s.emitLine(out, s.cand)
	}
	return out
}

// emitLine renders one source line; blank lines between paragraphs are
// collapsed to one, and none is emitted first or last.
func (s *mdStream) emitLine(out []string, line string) []string {
	if s.st.fence == "" && strings.TrimSpace(line) == "" {
		s.blanks = s.any
		return out
	}
	n := len(out)
	return s.settle(s.md.line(out, &s.st, line, s.width), n)
}

// put appends rendered lines, after the blank line owed.
func (s *mdStream) put(out, lines []string) []string {
	n := len(out)
	return s.settle(append(out, lines...), n)
}

// settle takes out with new lines from index n on: when there are any, it
// puts the blank line owed before them.
func (s *mdStream) settle(out []string, n int) []string {
	if len(out) == n {
		return out
	}
	if s.blanks {
		out = append(out, "")
		copy(out[n+1:], out[n:])
		out[n] = ""
		s.blanks = false
	}
	s.any = true
	return out
}

// cutLong splits a line longer than maxOpenLine: at its last space in
// the second half of the limit, else at the limit (on a rune boundary).
func cutLong(line string) (head, rest string) {
	cut := maxOpenLine
	if i := strings.LastIndexByte(line[:maxOpenLine], ' '); i >= maxOpenLine/2 {
		cut = i + 1
	}
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	if cut == 0 {
		cut = maxOpenLine
	}
	return line[:cut], line[cut:]
}

// line renders one source line given the state before it, appending to
// out; every line it appends fits in width columns (width ≥ 20).
func (md *markdown) line(out []string, st *mdState, line string, width int) []string {
	w := max(width-2, 10)
	line = sanitize(line)
	trimmed := strings.TrimSpace(line)
	if st.fence != "" {
		if strings.HasPrefix(trimmed, st.fence) && strings.Trim(trimmed, st.fence[:1]) == "" {
			st.fence, st.lang = "", ""
			return out
		}
		// Code keeps its spacing: long lines are cut, not reflowed.
		for _, l := range strings.Split(ansi.Hardwrap(line, w-2, true), "\n") {
			out = append(out, "  "+md.hl.line(st.lang, l))
		}
		return out
	}
	if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
		st.fence = trimmed[:3]
		st.lang = strings.ToLower(strings.Trim(strings.TrimLeft(trimmed, st.fence[:1]), " {}."))
		if f := strings.Fields(st.lang); len(f) > 0 {
			st.lang = f[0]
		}
		return out
	}
	switch {
	case headRe().MatchString(line):
		h := headRe().FindStringSubmatch(line)
		if len(h[1]) == 1 {
			return md.h1Lines(out, md.inline(h[2]), w)
		}
		return append(out, wrapIndent("", md.heading.Render(md.inline(h[2])), w)...)
	case ruleRe().MatchString(line), tableSep().MatchString(line):
		return append(out, md.rule.Render(strings.Repeat("─", min(w, 40))))
	case bulletRe().MatchString(line):
		b := bulletRe().FindStringSubmatch(line)
		return append(out, wrapIndent(indent(b[1], w)+"• ", md.inline(b[2]), w)...)
	case numRe().MatchString(line):
		b := numRe().FindStringSubmatch(line)
		return append(out, wrapIndent(indent(b[1], w)+b[2]+" ", md.inline(b[3]), w)...)
	case strings.HasPrefix(trimmed, ">"):
		q := strings.TrimSpace(strings.TrimLeft(trimmed, "> "))
		return append(out, wrapIndent("│ ", md.quote.Render(md.inline(q)), w)...)
	}
	return append(out, wrapIndent("", md.inline(line), w)...)
}

// indent caps a list item's indentation so that its text keeps room.
func indent(lead string, w int) string {
	return strings.Repeat(" ", min(len(lead), w/3))
}

// inline applies emphasis and inline code; markers are removed even
// without colour, so NO_COLOR output reads as text.
func (md *markdown) inline(s string) string {
	if !strings.ContainsAny(s, "`*_[<~") {
		return s
	}
	s = codeRe().ReplaceAllStringFunc(s, func(m string) string { return md.code.Render(m[1 : len(m)-1]) })
	if strings.ContainsAny(s, "[<") {
		s = md.links(s)
	}
	if !md.noColor && strings.Contains(s, "~~") {
		// Without styling the markers stay: dropping them would say
		// the opposite of what the text means.
		s = strikeRe().ReplaceAllStringFunc(s, func(m string) string { return md.strike.Render(m[2 : len(m)-2]) })
	}
	s = boldRe().ReplaceAllStringFunc(s, func(m string) string { return md.bold.Render(m[2 : len(m)-2]) })
	s = italicRe().ReplaceAllStringFunc(s, func(m string) string {
		sub := italicRe().FindStringSubmatch(m)
		return sub[1] + md.italic.Render(sub[2])
	})
	return s
}

// h1Lines renders a first-level heading: its own style, or without
// colour an underline as wide as its text.
func (md *markdown) h1Lines(out []string, text string, w int) []string {
	if !md.noColor {
		return append(out, wrapIndent("", md.h1.Render(text), w)...)
	}
	lines := wrapIndent("", text, w)
	width := 0
	for _, l := range lines {
		width = max(width, ansi.StringWidth(l))
	}
	return append(append(out, lines...), strings.Repeat("═", width))
}

// wrapIndent wraps s to width, prefixing the first line with lead and the
// others with as many spaces.
func wrapIndent(lead, s string, width int) []string {
	if s == "" {
		return []string{lead}
	}
	lw := ansi.StringWidth(lead)
	lines := strings.Split(ansi.Wrap(s, max(width-lw, 1), ""), "\n")
	pad := strings.Repeat(" ", lw)
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if i == 0 {
			lines[i] = lead + l
		} else {
			lines[i] = pad + l
		}
	}
	return lines
}

// sanitize makes model text safe to print: no escape sequences or other
// control characters (they could move the cursor or retitle the
// terminal), tabs as spaces, invalid UTF-8 replaced.
func sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		case unicode.Is(unicode.Cf, r) && r != '\u200d':
			// Format characters (bidi overrides, zero-width spaces) can hide
			// or reorder text.
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
