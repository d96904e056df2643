package tui

import (
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
)

// markdown renders finished replies: headings, emphasis, inline code,
// fenced code blocks, lists and quotes, wrapped to the width. It is small
// on purpose: a full renderer with a syntax highlighter runs package
// initialisers at every start of ply, headless runs included, which
// tripled startup time and doubled memory.
// UNFINISHED: syntax highlighting inside code blocks; tables.
type markdown struct {
	noColor bool
	bold    lipgloss.Style
	italic  lipgloss.Style
	code    lipgloss.Style
	heading lipgloss.Style
	quote   lipgloss.Style
}

func newMarkdown(noColor bool) *markdown {
	md := &markdown{noColor: noColor}
	if !noColor {
		md.bold = lipgloss.NewStyle().Bold(true)
		md.italic = lipgloss.NewStyle().Italic(true)
		md.code = lipgloss.NewStyle().Foreground(lipgloss.Color("215"))
		md.heading = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("75"))
		md.quote = lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
	}
	return md
}

var (
	boldRe   = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	italicRe = regexp.MustCompile(`(^|[\s(])[*_]([^*_\s][^*_\n]*)[*_]`)
	codeRe   = regexp.MustCompile("`([^`\n]+)`")
	headRe   = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	bulletRe = regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`)
)

func (md *markdown) render(text string, width int) string {
	w := max(width-4, 20)
	var out []string
	inFence := false
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			// Code keeps its lines: wrapping would change its meaning.
			out = append(out, "  "+md.code.Render(line))
			continue
		}
		switch {
		case headRe.MatchString(line):
			h := headRe.FindStringSubmatch(line)
			out = append(out, md.heading.Render(md.inline(h[2])))
		case bulletRe.MatchString(line):
			b := bulletRe.FindStringSubmatch(line)
			out = append(out, wrapIndent(b[1]+"• ", md.inline(b[2]), w)...)
		case strings.HasPrefix(trimmed, ">"):
			out = append(out, wrapIndent("│ ", md.quote.Render(md.inline(strings.TrimSpace(strings.TrimPrefix(trimmed, ">")))), w)...)
		default:
			out = append(out, wrapIndent("", md.inline(line), w)...)
		}
	}
	return strings.Join(out, "\n")
}

// inline applies emphasis and inline code; markers are removed even
// without colour, so NO_COLOR output reads as text.
func (md *markdown) inline(s string) string {
	s = codeRe.ReplaceAllStringFunc(s, func(m string) string { return md.code.Render(m[1 : len(m)-1]) })
	s = boldRe.ReplaceAllStringFunc(s, func(m string) string { return md.bold.Render(m[2 : len(m)-2]) })
	s = italicRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := italicRe.FindStringSubmatch(m)
		return sub[1] + md.italic.Render(sub[2])
	})
	return s
}

// wrapIndent wraps s to width, prefixing the first line with lead and the
// others with as many spaces.
func wrapIndent(lead, s string, width int) []string {
	if s == "" {
		return []string{lead}
	}
	body := lipgloss.NewStyle().Width(max(width-lipgloss.Width(lead), 10)).Render(s)
	lines := strings.Split(body, "\n")
	pad := strings.Repeat(" ", lipgloss.Width(lead))
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
