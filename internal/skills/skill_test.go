package skills

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	s, err := Parse("a/SKILL.md", []byte("---\nname: pdf-tools\ndescription: >\n  Fill and merge PDF forms.\n  Use for any PDF.\nallowed-tools: Read, Bash(pdftk:*) Bash(git status:*)\nlicense: MIT\n---\n\n# PDF\n\nRun scripts/fill.sh.\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Skill{Name: "pdf-tools", Description: "Fill and merge PDF forms. Use for any PDF.",
		AllowedTools: []string{"Read", "Bash(pdftk:*)", "Bash(git status:*)"}, Body: "# PDF\n\nRun scripts/fill.sh."}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %#v\nwant %#v", s, want)
	}
	s, err = Parse("b", []byte("\ufeff---\r\nname: x\r\ndescription: \"y: z\"\r\nallowed-tools:\r\n  - Read\r\n  - Grep\r\n---\r\nbody"))
	if err != nil || s.Description != "y: z" || !reflect.DeepEqual(s.AllowedTools, []string{"Read", "Grep"}) || s.Body != "body" {
		t.Errorf("CRLF, BOM and a list: %#v %v", s, err)
	}
}

func TestParseErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		line int
		want string
	}{
		"no front matter":   {"# Just markdown\n", 1, "starts with front matter"},
		"unclosed":          {"---\nname: a\ndescription: b\n", 1, "no closing"},
		"bad yaml":          {"---\nname: a\ndescription: b: c\n---\n", 3, "mapping values"},
		"bad indent":        {"---\nname: a\ndescription: b\n  bad: indent\n---\n", 4, "front matter"},
		"no name":           {"---\ndescription: b\n---\n", 1, `needs "name"`},
		"bad name":          {"---\ndescription: b\nname: Bad Name\n---\n", 3, "name \"Bad Name\""},
		"no description":    {"---\nname: a\n---\n", 1, `needs "description"`},
		"list name":         {"---\nname: [a]\ndescription: b\n---\n", 2, "name must be text"},
		"map tools":         {"---\nname: a\ndescription: b\nallowed-tools: {a: b}\n---\n", 4, "allowed-tools"},
		"not a mapping":     {"---\n- a\n- b\n---\n", 2, "key: value"},
		"empty frontmatter": {"---\n---\nbody", 1, "empty"},
	} {
		_, err := Parse("skills/x/SKILL.md", []byte(tc.text))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(err.Error(), tc.want) ||
			!strings.HasPrefix(err.Error(), "skills/x/SKILL.md:") {
			t.Errorf("%s: err = %v (line %d), want line %d mentioning %q", name, err, lineOf(pe), tc.line, tc.want)
		}
	}
}

func lineOf(pe *ParseError) int {
	if pe == nil {
		return 0
	}
	return pe.Line
}

func TestSplitRules(t *testing.T) {
	got := splitRules("Read,Grep  Bash(git log --oneline:*), WebFetch(domain:example.com)")
	var out []string
	for _, s := range got {
		if s != "" {
			out = append(out, s)
		}
	}
	want := []string{"Read", "Grep", "Bash(git log --oneline:*)", "WebFetch(domain:example.com)"}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got %q", out)
	}
}

// FuzzParse: any input gives a valid skill or a ParseError whose line
// lies within the file; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\nname: a\ndescription: >\n  x\n  y\nallowed-tools: [Read, \"Bash(a b:*)\"]\n---\n",
		"---\nname: a\ndescription: [\n---\n",
		"---\n: :\n---\n",
		"---\nname: &a x\ndescription: *a\n---\n",
		"---\r\nname: a\r\n---",
		"\ufeff---\n---\n",
		"",
		"---",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("p", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("not a ParseError: %v", err)
			}
			if n := strings.Count(string(data), "\n") + 1; pe.Line < 1 || pe.Line > n {
				t.Fatalf("line %d outside the file's %d lines: %v", pe.Line, n, err)
			}
			return
		}
		if !ValidName(s.Name) || s.Description == "" {
			t.Fatalf("accepted %#v", s)
		}
	})
}
