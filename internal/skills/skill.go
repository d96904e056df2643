// Package skills owns the user's skills: folders holding a SKILL.md whose
// YAML front matter gives the skill's name, description and, optionally,
// the tools it may use unasked (allowed-tools), and whose body is the
// instructions. It finds them in the user's and the project's skill
// folders, parses them (reporting a malformed one with its file and line,
// and skipping it), offers the model a "skill" tool that lists each by
// name and description and loads one on request, and tracks what loading
// grants: the skill's folder becomes readable for the rest of the
// session, and its allowed-tools are allowed while it is active.
//
// It must not touch the conversation or the UI: the entry layers show the
// list and turn a user's /name into a prompt with Set.Invoke.
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// maxFile bounds a SKILL.md; its body goes into the conversation whole.
const maxFile = 256 << 10

// Skill is one parsed skill.
type Skill struct {
	Name        string
	Description string
	// AllowedTools are permission rules ("Read", "Bash(git diff:*)"),
	// granted while the skill is active.
	AllowedTools []string
	// Body is the instructions: SKILL.md after its front matter.
	Body string
	// Dir is the skill's folder and Path its SKILL.md, both absolute.
	Dir, Path string
	// Source says where it was found: "user" or "project".
	Source string
}

// ParseError is a SKILL.md that could not be used: its path, the line
// (1-based) where the problem is, and what is wrong.
type ParseError struct {
	Path string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Parse reads a SKILL.md: front matter between a first line "---" and
// the next line "---", then the body. path is used in errors only; the
// caller fills Dir, Path and Source.
func Parse(path string, data []byte) (Skill, error) {
	fail := func(line int, format string, args ...any) (Skill, error) {
		return Skill{}, &ParseError{Path: path, Line: line, Err: fmt.Errorf(format, args...)}
	}
	if len(data) > maxFile {
		return fail(1, "%d bytes is more than the %d a skill may have", len(data), maxFile)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	lines := strings.Split(string(data), "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return fail(1, "a skill starts with front matter: a first line \"---\", then name and description, then \"---\"")
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return fail(1, "the front matter opened here has no closing \"---\" line")
	}
	front := strings.Join(lines[1:end], "\n")
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		// yaml counts from the front matter's first line, file line 2.
		return fail(1+yamlLine(err), "front matter: %s", yamlMessage(err))
	}
	if len(doc.Content) == 0 {
		return fail(1, "the front matter is empty: it needs name and description")
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return fail(1+m.Line, "the front matter must be \"key: value\" lines")
	}
	s := Skill{Body: strings.TrimSpace(strings.Join(lines[end+1:], "\n"))}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := 1 + k.Line
		switch k.Value {
		case "name", "description":
			if v.Kind != yaml.ScalarNode {
				return fail(line, "%s must be text", k.Value)
			}
			if k.Value == "name" {
				s.Name = strings.TrimSpace(v.Value)
			} else {
				s.Description = strings.TrimSpace(v.Value)
			}
		case "allowed-tools", "allowed_tools":
			tools, err := toolList(v)
			if err != nil {
				return fail(line, "%s: %v", k.Value, err)
			}
			s.AllowedTools = tools
		}
	}
	switch {
	case s.Name == "":
		return fail(1, "the front matter needs \"name\"")
	case !ValidName(s.Name):
		return fail(1+keyLine(m, "name"), "name %q: use lower-case letters, digits, - and _ (at most 64)", s.Name)
	case s.Description == "":
		return fail(1, "the front matter needs \"description\": the model picks a skill by it")
	}
	return s, nil
}

// ValidName reports whether name can name a skill, and so be typed as
// /name.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' || name[0] == '_' {
		return false
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func keyLine(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

// toolList accepts a YAML list, or one string of rules separated by
// commas or spaces (spaces inside a rule's parentheses stay:
// "Bash(git status:*) Read" is two rules).
func toolList(n *yaml.Node) ([]string, error) {
	var raw []string
	switch n.Kind {
	case yaml.ScalarNode:
		raw = splitRules(n.Value)
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errors.New("a list of tool names, or one string of them")
			}
			raw = append(raw, c.Value)
		}
	default:
		return nil, errors.New("a list of tool names, or one string of them")
	}
	var out []string
	for _, t := range raw {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out, nil
}

// splitRules splits s at commas and white space outside parentheses.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// yamlLine is the line yaml.v3 names in err, counted from 1, or 1.
func yamlLine(err error) int {
	if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			return n
		}
	}
	return 1
}

// yamlMessage is err's text without its "yaml: line N:" prefix, which
// ParseError replaces with the file's own line.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineRE().FindStringIndex(msg); m != nil && m[0] == 0 {
		msg = strings.TrimLeft(msg[m[1]:], ": ")
	}
	return msg
}
