package gitstate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxConfig caps what is read of one configuration file.
const maxConfig = 1 << 20

// configEntry is one variable of a configuration file. Key is
// "section.name" or "section.subsection.name", the section and the name
// lower-cased as git compares them, the subsection as written.
type configEntry struct {
	Key   string
	Value string
	Bare  bool // "name" alone, which git reads as true
}

// errConfig is a configuration file git would refuse too.
var errConfig = errors.New("malformed configuration")

// parseConfig parses a file in git's configuration syntax.
func parseConfig(data []byte) ([]configEntry, error) {
	p := &configParser{s: string(data)}
	p.s = strings.TrimPrefix(p.s, "\xef\xbb\xbf")
	var out []configEntry
	section := ""
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return out, nil
		}
		switch c := p.s[p.i]; {
		case c == '\n':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			s, err := p.section()
			if err != nil {
				return nil, err
			}
			section = s
		case isAlpha(c):
			if section == "" {
				return nil, fmt.Errorf("%w: a variable outside a section at byte %d", errConfig, p.i)
			}
			e, err := p.variable()
			if err != nil {
				return nil, err
			}
			e.Key = section + "." + e.Key
			out = append(out, e)
		default:
			return nil, fmt.Errorf("%w: unexpected %q at byte %d", errConfig, c, p.i)
		}
	}
}

type configParser struct {
	s string
	i int
}

func (p *configParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *configParser) skipLine() {
	if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
		p.i += j + 1
	} else {
		p.i = len(p.s)
	}
}

// section parses "[name]", "[name.sub]" or `[name "sub"]`.
func (p *configParser) section() (string, error) {
	p.i++ // '['
	start := p.i
	for p.i < len(p.s) && (isAlnum(p.s[p.i]) || p.s[p.i] == '-' || p.s[p.i] == '.') {
		p.i++
	}
	name := strings.ToLower(p.s[start:p.i])
	if name == "" || p.i >= len(p.s) {
		return "", fmt.Errorf("%w: bad section header", errConfig)
	}
	if p.s[p.i] == ']' {
		p.i++
		return name, nil
	}
	if p.s[p.i] != ' ' && p.s[p.i] != '\t' {
		return "", fmt.Errorf("%w: bad section header", errConfig)
	}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", fmt.Errorf("%w: bad section header", errConfig)
	}
	p.i++
	var sub strings.Builder
	for {
		if p.i >= len(p.s) || p.s[p.i] == '\n' {
			return "", fmt.Errorf("%w: unterminated subsection", errConfig)
		}
		c := p.s[p.i]
		p.i++
		if c == '"' {
			break
		}
		if c == '\\' {
			if p.i >= len(p.s) || p.s[p.i] == '\n' {
				return "", fmt.Errorf("%w: unterminated subsection", errConfig)
			}
			c = p.s[p.i]
			p.i++
		}
		sub.WriteByte(c)
	}
	if p.i >= len(p.s) || p.s[p.i] != ']' {
		return "", fmt.Errorf("%w: bad section header", errConfig)
	}
	p.i++
	return name + "." + sub.String(), nil
}

// variable parses "name", "name = value" up to the end of its line.
func (p *configParser) variable() (configEntry, error) {
	start := p.i
	for p.i < len(p.s) && (isAlnum(p.s[p.i]) || p.s[p.i] == '-') {
		p.i++
	}
	e := configEntry{Key: strings.ToLower(p.s[start:p.i])}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == '#' || p.s[p.i] == ';' {
		e.Bare = true
		p.skipLine()
		return e, nil
	}
	if p.s[p.i] != '=' {
		return e, fmt.Errorf("%w: bad variable %q", errConfig, e.Key)
	}
	p.i++
	v, err := p.value()
	e.Value = v
	return e, err
}

// value parses a value with git's quoting, escapes, comments and line
// continuations; it consumes the end of the line.
func (p *configParser) value() (string, error) {
	var b strings.Builder
	quoted := false
	pending := 0 // spaces seen outside quotes, kept only if more follows
	p.skipSpace()
	for {
		if p.i >= len(p.s) {
			if quoted {
				return "", fmt.Errorf("%w: unterminated quote", errConfig)
			}
			return b.String(), nil
		}
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\n':
			if quoted {
				return "", fmt.Errorf("%w: unterminated quote", errConfig)
			}
			return b.String(), nil
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String(), nil
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if b.Len() > 0 {
				pending++
			}
			continue
		}
		for ; pending > 0; pending-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			if p.i >= len(p.s) {
				return "", fmt.Errorf("%w: bad escape", errConfig)
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '\n':
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case '\\', '"':
				b.WriteByte(e)
			default:
				return "", fmt.Errorf("%w: bad escape", errConfig)
			}
		default:
			b.WriteByte(c)
		}
	}
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// configBool reads a boolean as git does; ok is false for anything else.
func configBool(e configEntry) (v, ok bool) {
	if e.Bare {
		return true, true
	}
	switch strings.ToLower(e.Value) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	if n, err := strconv.Atoi(e.Value); err == nil {
		return n != 0, true
	}
	return false, false
}
