package tui

import (
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
)

// highlighter colours code lines of a few common languages by keywords,
// strings, numbers and comments, one line at a time. It does not parse:
// a string or comment spanning lines is coloured only on its first line.
// That is the price of not loading a full highlighter (see markdown).
type highlighter struct {
	off                                bool
	plain, kw, str, num, com, add, del lipgloss.Style
	hunk                               lipgloss.Style
}

func newHighlighter(noColor bool) highlighter {
	if noColor {
		return highlighter{off: true}
	}
	c := func(n string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(n)) }
	return highlighter{plain: c("252"), kw: c("204"), str: c("114"), num: c("173"), com: c("245"),
		add: c("10"), del: c("9"), hunk: c("14")}
}

// lang describes what the highlighter knows of one language.
type lang struct {
	keywords map[string]bool
	comment  []string // line comment openers
	quotes   string
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// langs maps a fence's language name to what the highlighter knows of it;
// built on first use, since most runs never draw a code block.
var langs = sync.OnceValue(func() map[string]*lang {
	goLang := &lang{keywords: words(`break case chan const continue default defer else fallthrough for func go goto if
			import interface map package range return select struct switch type var nil true false iota any error string
			int int64 int32 uint uint64 byte rune bool float64 make new len cap append`), comment: []string{"//"}, quotes: "\"'`"}
	pyLang := &lang{keywords: words(`and as assert async await break class continue def del elif else except False finally
			for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self
			print len range str int dict list`), comment: []string{"#"}, quotes: "\"'"}
	jsLang := &lang{keywords: words(`async await break case catch class const continue debugger default delete do else
			export extends false finally for from function if import in instanceof interface let new null of return static
			super switch this throw true try type typeof undefined var void while yield enum implements readonly string
			number boolean`), comment: []string{"//"}, quotes: "\"'`"}
	shLang := &lang{keywords: words(`if then else elif fi for while until do done case esac in function return export local
			set unset echo cd exit source sudo`), comment: []string{"#"}, quotes: "\"'"}
	jsonLang := &lang{keywords: words(`true false null`), quotes: "\""}
	return map[string]*lang{
		"go": goLang, "golang": goLang, "python": pyLang, "py": pyLang,
		"js": jsLang, "javascript": jsLang, "ts": jsLang, "typescript": jsLang, "jsx": jsLang, "tsx": jsLang,
		"sh": shLang, "bash": shLang, "shell": shLang, "zsh": shLang, "console": shLang,
		"json": jsonLang, "jsonc": jsonLang,
	}
})

// line colours one line of code in language name.
func (h highlighter) line(name, s string) string {
	if h.off || s == "" {
		return s
	}
	switch name {
	case "diff", "patch":
		return h.diffLine(s)
	}
	l := langs()[name]
	if l == nil {
		return h.plain.Render(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case hasAnyPrefix(s[i:], l.comment):
			b.WriteString(h.com.Render(s[i:]))
			return b.String()
		case strings.IndexByte(l.quotes, c) >= 0:
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(h.str.Render(s[i:j]))
			i = j
		case isDigit(c) && (i == 0 || !isWord(s[i-1])):
			j := i
			for j < len(s) && (isWord(s[j]) || s[j] == '.') {
				j++
			}
			b.WriteString(h.num.Render(s[i:j]))
			i = j
		case isWord(c):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			if l.keywords[s[i:j]] {
				b.WriteString(h.kw.Render(s[i:j]))
			} else {
				b.WriteString(h.plain.Render(s[i:j]))
			}
			i = j
		default:
			j := i + 1
			for j < len(s) && !isWord(s[j]) && strings.IndexByte(l.quotes, s[j]) < 0 && !hasAnyPrefix(s[j:], l.comment) {
				j++
			}
			b.WriteString(h.plain.Render(s[i:j]))
			i = j
		}
	}
	return b.String()
}

// diffLine colours one line of a unified diff.
func (h highlighter) diffLine(s string) string {
	if h.off {
		return s
	}
	switch {
	case strings.HasPrefix(s, "+++"), strings.HasPrefix(s, "---"):
		return h.com.Render(s)
	case strings.HasPrefix(s, "+"):
		return h.add.Render(s)
	case strings.HasPrefix(s, "-"):
		return h.del.Render(s)
	case strings.HasPrefix(s, "@@"):
		return h.hunk.Render(s)
	}
	return h.plain.Render(s)
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= 0x80
}
