package shell

import (
	"errors"
	"strings"
	"testing"
)

// Lines where bash and the parser read different commands. Each runs a
// command in bash that the parser hides (in a here-document body, a
// comment or a word), so each must fail closed: opaque, with a reason
// that names the construct, not read-only, and no simple commands.
var bashDisagreements = []struct{ name, line, reason string }{
	{"here-document delimiter split by a continuation",
		"cat <<EOF\nEO\\\nF\nrm -rf x\nEOF\n", "here-document"},
	{"here-document in <<- with a continuation",
		"cat <<-EOF\n\tEO\\\nF\nrm -rf x\nEOF\n", "here-document"},
	{"here-document with a command substitution left open past the delimiter",
		"cat <<EOF\n$(\nEOF\nrm -rf x\n)\nEOF\n", "here-document"},
	{"here-document with a backquote left open past the delimiter",
		"cat <<EOF\n`\nEOF\nrm -rf x\n`\nEOF\n", "here-document"},
	{"here-document with a continuation inside a quoted program name in a substitution",
		"cat <<EOF\n$('r\\\nm' -rf x)\nEOF\n", "here-document"},
	{"here-document inside backquotes whose body holds a backquote",
		"cat `cat <<'EOF' | true\n`\nEOF\nrm -rf x\n`", "backquotes"},
	{"comment ending in a backslash",
		"ls #\\\nrm -rf x", "comment"},
	{"comment ending in a backslash after a word",
		"cat a # note \\\nrm -rf x", "comment"},
	{"carriage return and line feed after a backslash",
		"cat x \\\r\nrm -rf y", "carriage return"},
	{"comment ending in a backslash, carriage return, line feed",
		"cat x # c \\\r\nrm -rf y", "carriage return"},
	{"lone carriage return before a comment",
		"cat x\r#c; rm -rf y", "carriage return"},
	{"carriage return in a word",
		"ls \r-la\n\r-la", "carriage return"},
	{"dollar sign before a continuation, in double quotes",
		"cat \"$\\\n(rm -rf x)\"", "dollar sign"},
	{"dollar sign before a continuation and a quoted string",
		"cat $\\\n'-rf\\n'", "dollar sign"},
	{"backslash at the end of the input, after a quoted newline",
		"rm 'a\nb'c\\", "ends in a backslash"},
	{"backslash at the end of the input, after a program name quoted across lines",
		"' $ #\n{ 'head\\", "ends in a backslash"},
	{"time after a pipe, which bash runs as a program",
		"ls | time -o out rm -rf x", "time"},
	{"time after a pipe, read-only for the parser",
		"ls | time -p cat x", "time"},
	{"time split by a continuation after a pipe",
		"ls | ti\\\nme -o out rm -rf x", "time"},
	{"NUL byte",
		"cat x\x00; rm -rf y", "NUL"},
}

func TestBashDisagreementFailsClosed(t *testing.T) {
	for _, c := range bashDisagreements {
		t.Run(c.name, func(t *testing.T) {
			reason, opaque := Opaque(c.line)
			if !opaque || !strings.Contains(reason, c.reason) {
				t.Errorf("Opaque(%q) = %q, %v; want opaque with a reason naming %q", c.line, reason, opaque, c.reason)
			}
			if IsReadOnly(c.line) || IsReadOnlyIn(c.line, []string{fuzzRoot}, fuzzRoot) {
				t.Errorf("IsReadOnly(%q) = true", c.line)
			}
			if scs, err := SimpleCommands(c.line); !errors.Is(err, ErrParse) {
				t.Errorf("SimpleCommands(%q) = %q, %v; want an error wrapping ErrParse", c.line, scs, err)
			}
		})
	}
}

// Lines bash and the parser read alike keep their answers: the check
// must not catch here-documents, continuations and comments that agree.
func TestBashAgreementKeepsReadOnly(t *testing.T) {
	for _, line := range []string{
		"cat <<EOF\nhello\nEOF",
		"cat <<EOF\nhello\nEOF\nls",
		"cat <<'EOF'\nx\\\nEOF\nls",
		"cat <<\\EOF\nx\\\nEOF",
		"cat <<EOF\na\\\\\nEOF",
		"cat <<-EOF\n\ta\n\tEOF\nls",
		"cat <<A; cat <<B\na\nA\nb\nB\nls",
		"cat <<EOF | grep x\nx\nEOF",
		"cat <<EOF\n\nEOF",
		"cat <<EOF\nEOF",
		"cat <<E\"O\"F\n$x\nEOF",
		"cat <<EOF\nend\nEOF\n",
		"ls # a comment\ncat x",
		"ls \\\n-la # a comment",
		"cat 'a#b' a#b \\#x",
		"cat a\\\\",
		"time cat x | wc",
		"ls && time -p cat x",
	} {
		if reason, opaque := Opaque(line); opaque {
			t.Errorf("Opaque(%q) = %q", line, reason)
		}
		if !IsReadOnly(line) {
			t.Errorf("IsReadOnly(%q) = false", line)
		}
	}
}
