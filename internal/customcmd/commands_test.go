package customcmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoad(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	write(t, user, map[string]string{
		"review.md": "Review the code.",
		"fix.md":    "user fix $ARGUMENTS",
	})
	write(t, proj, map[string]string{
		"fix.md":           "---\ndescription: Fix an issue\nargument-hint: [issue-number]\nallowed-tools: Bash(git add:*), Read\nmodel: small\n---\n\nFix issue #$1 now.\n",
		"frontend/test.md": "---\ndescription: run the UI tests\n---\nnpm test",
		"bad.md":           "---\ndescription: [unclosed\n---\nbody",
		"open.md":          "---\ndescription: x\nbody without end",
		"notes.txt":        "not a command",
		".hidden/x.md":     "hidden folder",
	})
	cmds, errs := Load(Dir{user, "user"}, Dir{proj, "project"})
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if want := []string{"fix", "frontend:test", "review"}; !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	fix := cmds[0]
	if fix.Source != "project" || fix.Description != "Fix an issue" || fix.ArgumentHint != "[issue-number]" ||
		fix.Model != "small" || !slices.Equal(fix.AllowedTools, []string{"Bash(git add:*)", "Read"}) || fix.Body != "Fix issue #$1 now." {
		t.Errorf("project fix not read right (or did not override the user's): %+v", fix)
	}
	if cmds[2].Source != "user" || cmds[2].Body != "Review the code." || cmds[2].Description != "" {
		t.Errorf("a file without front matter: %+v", cmds[2])
	}
	if len(errs) != 2 {
		t.Fatalf("want 2 errors, got %v", errs)
	}
	msgs := errs[0].Error() + "\n" + errs[1].Error()
	for _, want := range []string{filepath.Join(proj, "bad.md") + ":2: front matter:", filepath.Join(proj, "open.md") + ":1: the front matter opened here has no closing --- line"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("errors lack %q:\n%s", want, msgs)
		}
	}
}

func TestParseErrorLine(t *testing.T) {
	_, err := Parse("x", "x.md", []byte("---\ndescription: ok\nargument-hint: [a] [b]\nmodel: a: b\n---\nbody"))
	if err == nil || !strings.HasPrefix(err.Error(), "command x.md:4: front matter") {
		t.Fatalf("err = %v", err)
	}
	_, err = Parse("x", "x.md", []byte("---\ndescription: ok\nallowed-tools: {a: b}\n---\nbody"))
	if err == nil || !strings.Contains(err.Error(), "x.md:3: allowed-tools") {
		t.Fatalf("err = %v", err)
	}
	c, err := Parse("x", "x.md", []byte("---\n---\nbody\n---\nmore"))
	if err != nil || c.Body != "body\n---\nmore" {
		t.Fatalf("empty front matter: %+v %v", c, err)
	}
}

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		body, args, text string
		cmds             []string
	}{
		{"Fix $ARGUMENTS please", "the bug", "Fix the bug please", nil},
		{"Fix {{args}}", "it", "Fix it", nil},
		{"issue $1 priority $2 ($3)", `42 "very high"`, "issue 42 priority very high ()", nil},
		{"Review the code.", "src/a.go", "Review the code.\n\nsrc/a.go", nil},
		{"Review the code.", "", "Review the code.", nil},
		{"costs $5 and $0 and $X", "a b c d e", "costs e and $0 and $X", nil},
		{"Status: !`git status`\nDiff: !{git diff $1}", "HEAD", "Status: <0>\nDiff: <1>", []string{"git status", "git diff 'HEAD'"}},
		{"!`grep $ARGUMENTS`", "x'; rm -rf /", "<0>", []string{`grep 'x'\''; rm -rf /'`}},
		{"!{echo {nested}} end", "", "<0> end", []string{"echo {nested}"}},
		{"wow! `not` !`` !{ unclosed", "", "wow! `not` !`` !{ unclosed", nil},
	} {
		e := Expand(tc.body, tc.args)
		var outs []string
		for i := range e.Commands() {
			outs = append(outs, "<"+string(rune('0'+i))+">")
		}
		if got := e.Fill(outs); got != tc.text || !slices.Equal(e.Commands(), tc.cmds) {
			t.Errorf("Expand(%q, %q) = %q %q, want %q %q", tc.body, tc.args, got, e.Commands(), tc.text, tc.cmds)
		}
	}
}

// FuzzExpand checks that expansion never panics, that every shell command
// it finds came from a !` or !{ in the body, and that a body without
// placeholders or shell marks comes back as it was, with the arguments
// after it.
func FuzzExpand(f *testing.F) {
	for _, s := range [][2]string{
		{"Fix $ARGUMENTS", "it"}, {"$1 $2 $10 $999", "a 'b c' \"d"}, {"!`ls` !{a {b} c} !{", "x"},
		{"{{args}}{{arg", "y"}, {"$", ""}, {"!", "!"}, {"!`$1`", "'"}, {"é$ARGUMENTSé", "ü"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, body, args string) {
		e := Expand(body, args)
		cmds := e.Commands()
		if len(cmds) > strings.Count(body, "!") {
			t.Fatalf("%d commands from %d '!' in %q", len(cmds), strings.Count(body, "!"), body)
		}
		out := e.Fill(nil)
		if !strings.ContainsAny(body, "$!{") {
			want := body
			if a := strings.TrimSpace(args); a != "" {
				want += "\n\n" + a
			}
			if out != want {
				t.Fatalf("plain body %q args %q: got %q", body, args, out)
			}
		}
		if !strings.Contains(body, "!") && !strings.Contains(body, "$") && !strings.Contains(body, "{{args}}") && len(cmds) != 0 {
			t.Fatal("commands without marks")
		}
		// $1 not followed by a digit is the first word.
		if i := strings.Index(body, "$1"); i >= 0 && !strings.Contains(body, "!") && (i+2 == len(body) || body[i+2] < '0' || body[i+2] > '9') {
			if w := splitWords(strings.TrimSpace(args)); len(w) > 0 && !strings.Contains(out, w[0]) {
				t.Fatalf("$1 not expanded: body %q args %q out %q", body, args, out)
			}
		}
	})
}

// FuzzParse checks that a command file never panics the parser and that
// every error names the file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"body", "---\ndescription: d\n---\nb", "---\nargument-hint: [a] [b]\n---", "---\n---", "---\na: [\n---\n", "\ufeff---\r\nmodel: m\r\n---\r\nx"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("n", "x.md", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "command x.md") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if c.Name != "n" || strings.TrimSpace(c.Body) != c.Body {
			t.Fatalf("parsed %+v", c)
		}
	})
}
