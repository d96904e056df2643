package shell

import "strings"

// sedArgs accepts sed only as a printer: -n must be given, -i (in place)
// and -f (a script this checker cannot see) are refused, and the script
// must contain no w/W (write a file) or e (run a command) command and no
// s///w or s///e flag. Long options are accepted only when spelled out in
// full, so abbreviations of --in-place cannot slip through.
func sedArgs(args []word) bool {
	quiet, scripts, ok := sedScripts(args)
	if !ok || !quiet || len(scripts) == 0 {
		return false
	}
	files, ok := sedScriptFiles(strings.Join(scripts, "\n"))
	if !ok {
		return false
	}
	for _, f := range files {
		if !sedReadable(f) {
			return false
		}
	}
	return true
}

// sedScripts returns the scripts of sed's arguments (-e, --expression or
// the first operand), and whether -n was given; ok is false for an
// option this checker refuses or a script it cannot read.
func sedScripts(args []word) (quiet bool, scripts []string, ok bool) {
	haveOperandScript := false
	value := func(i int) (string, bool) { // the word after an option
		if i >= len(args) || !args[i].exact {
			return "", false
		}
		return args[i].text, true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			if a.mayBeOption() || (len(scripts) == 0 && !haveOperandScript) {
				return false, nil, false // a hidden option, or a script we cannot read
			}
			continue // an input file
		}
		t := a.text
		switch {
		case t == "--quiet" || t == "--silent":
			quiet = true
		case t == "--regexp-extended" || t == "--null-data" || t == "--zero-terminated" ||
			t == "--separate" || t == "--unbuffered" || t == "--posix" || t == "--debug" || t == "--sandbox":
		case strings.HasPrefix(t, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(t, "--expression="))
		case t == "--expression":
			i++
			s, ok := value(i)
			if !ok {
				return false, nil, false
			}
			scripts = append(scripts, s)
		case strings.HasPrefix(t, "--line-length="):
		case t == "--line-length":
			i++
		case strings.HasPrefix(t, "--"):
			return false, nil, false
		case len(t) > 1 && t[0] == '-':
			for j := 1; j < len(t); j++ {
				c := t[j]
				if c == 'n' {
					quiet = true
					continue
				}
				if strings.IndexByte("Ersuz", c) >= 0 {
					continue
				}
				if c != 'e' && c != 'l' {
					return false, nil, false // -i, -f, -s... unknown letters
				}
				// -e and -l take the rest of the word, or the next word.
				v := t[j+1:]
				if v == "" {
					i++
					s, ok := value(i)
					if !ok {
						return false, nil, false
					}
					v = s
				}
				if c == 'e' {
					scripts = append(scripts, v)
				}
				break
			}
		default:
			if len(scripts) == 0 && !haveOperandScript {
				haveOperandScript = true
				scripts = append(scripts, t)
			}
		}
	}
	return quiet, scripts, true
}

// sedParser walks a sed script far enough to see every command letter. It
// follows GNU sed's reading: regex and replacement end at the first
// unescaped delimiter (brackets do not protect it), labels end at newline
// or ';', and file names and a/i/c text run to the end of the line.
type sedParser struct {
	s string
	i int
}

func sedScriptReadOnly(script string) bool {
	_, ok := sedScriptFiles(script)
	return ok
}

// sedScriptFiles returns the files the r and R commands of a sed script
// read; ok is false when the script writes, runs a command or holds
// anything this parser does not know.
func sedScriptFiles(script string) (files []string, ok bool) {
	p := &sedParser{s: script}
	for {
		p.skip(" \t\n;")
		if p.eof() {
			return files, true
		}
		if !p.address() {
			return nil, false
		}
		p.skip(" \t")
		for p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.eof() {
			return nil, false
		}
		c := p.s[p.i]
		p.i++
		switch c {
		case '{':
			continue // a block opens: a command follows directly
		case '}':
		case '#':
			p.toEOL()
		case ':', 'b', 't', 'T', 'v':
			p.until("\n;")
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'q', 'Q', 'L':
			p.skip(" \t")
			p.digits()
		case 'a', 'i', 'c':
			p.toEOL() // text to print
		case 'r', 'R':
			// A file to read: the caller checks where it is.
			p.skip(" \t")
			start := p.i
			p.toEOL()
			files = append(files, p.s[start:p.i])
		case 's':
			if !p.delimited(2) {
				return nil, false
			}
			for !p.eof() && strings.IndexByte("gpiImM0123456789", p.peek()) >= 0 {
				p.i++
			}
		case 'y':
			if !p.delimited(2) {
				return nil, false
			}
		default:
			return nil, false // w, W, e and anything unknown
		}
		p.skip(" \t")
		if !p.eof() && strings.IndexByte("\n;}#", p.peek()) < 0 {
			return nil, false // s///w file, s///e and other trailing text land here
		}
	}
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }

func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) skip(set string) {
	for !p.eof() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedParser) until(set string) {
	for !p.eof() && strings.IndexByte(set, p.s[p.i]) < 0 {
		p.i++
	}
}

// toEOL consumes to the end of the line; a backslash-newline continues it.
func (p *sedParser) toEOL() {
	for !p.eof() && p.s[p.i] != '\n' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
}

func (p *sedParser) digits() bool {
	start := p.i
	for !p.eof() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// delimited consumes n fields separated by the delimiter that follows the
// command letter (s/a/b/ has 2), with backslash escapes.
func (p *sedParser) delimited(n int) bool {
	if p.eof() || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return false
	}
	delim := p.s[p.i]
	p.i++
	return p.fields(delim, n)
}

func (p *sedParser) fields(delim byte, n int) bool {
	for ; n > 0; n-- {
		for {
			if p.eof() {
				return false
			}
			c := p.s[p.i]
			p.i++
			if c == '\\' {
				p.i++
				continue
			}
			if c == delim {
				break
			}
		}
	}
	return true
}

// address consumes an optional address or address range.
func (p *sedParser) address() bool {
	if !p.oneAddress() {
		return false
	}
	if p.peek() != ',' {
		return true
	}
	p.i++
	p.skip(" \t")
	if c := p.peek(); c == '+' || c == '~' { // GNU: addr,+N and addr,~N
		p.i++
		return p.digits()
	}
	return p.oneAddress()
}

func (p *sedParser) oneAddress() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.peek() == '~' { // GNU first~step
			p.i++
			return p.digits()
		}
	case c == '$':
		p.i++
	case c == '/':
		p.i++
		if !p.fields('/', 1) {
			return false
		}
		p.regexFlags()
	case c == '\\':
		p.i++
		if p.eof() || p.s[p.i] == '\n' {
			return false
		}
		delim := p.s[p.i]
		p.i++
		if !p.fields(delim, 1) {
			return false
		}
		p.regexFlags()
	}
	return true
}

func (p *sedParser) regexFlags() {
	for c := p.peek(); c == 'I' || c == 'M'; c = p.peek() {
		p.i++
	}
}

// sedReadable reports whether a file named in a sed script may be read
// without knowing the workspace: relative, without .., or a standard
// stream.
func sedReadable(name string) bool {
	if harmlessDevice(name) {
		return true
	}
	return !strings.HasPrefix(name, "/") && !strings.HasPrefix(name, "~") && !hasDotDot(name)
}
