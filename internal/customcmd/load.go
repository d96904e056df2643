// Package customcmd owns custom slash commands: markdown files whose body
// is a prompt template, found in the user's and a trusted project's
// commands folders, and their expansion with the arguments typed after
// the name. The format is the one other coding agents use: optional YAML
// front matter (description, argument-hint, allowed-tools, model), then
// the body, where $ARGUMENTS, $1, $2… take the arguments and !`cmd` (or
// !{cmd}) marks a shell command whose output replaces it.
//
// The package reads files and rewrites text, and Front applies a running
// command's allowed-tools and model; running the shell commands, with the
// user's consent, is the entry layer's business.
package customcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/safefile"
	"gopkg.in/yaml.v3"
)

// Command is one custom command.
type Command struct {
	// Name is the command without its slash; a file in a subfolder gets
	// the folder as a namespace: frontend/test.md is "frontend:test".
	Name         string
	Description  string
	ArgumentHint string
	// AllowedTools are permission rules allowed while the command's
	// prompt runs; Model answers that prompt (see Front).
	AllowedTools []string
	Model        string
	Body         string
	// Path is the file; Source says where it was found ("user",
	// "project", ".claude", …).
	Path, Source string
}

// Dir is a folder of command files and the source name its commands get.
type Dir struct{ Path, Source string }

// maxFile bounds a command file: it becomes a prompt.
const maxFile = 256 << 10

// maxDepth bounds the subfolders walked for namespaces.
const maxDepth = 4

// Load reads the commands in dirs, later folders overriding earlier ones
// by name (list the user's folder first, then the project's). A file that
// does not parse is reported in errs, naming the file and line, and
// skipped; a missing folder is not an error. The result is sorted by name.
func Load(dirs ...Dir) (cmds []Command, errs []error) {
	byName := map[string]Command{}
	for _, d := range dirs {
		if d.Path == "" {
			continue
		}
		errs = append(errs, walk(d, d.Path, nil, byName)...)
	}
	for _, c := range byName {
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds, errs
}

func walk(d Dir, dir string, ns []string, byName map[string]Command) (errs []error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("reading commands in %s: %w", dir, err))
		}
		return errs
	}
	for _, e := range entries {
		n := e.Name()
		path := filepath.Join(dir, n)
		if e.IsDir() {
			if len(ns) < maxDepth && validPart(n) {
				errs = append(errs, walk(d, path, append(ns[:len(ns):len(ns)], n), byName)...)
			}
			continue
		}
		base, ok := strings.CutSuffix(n, ".md")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if !validPart(base) {
			errs = append(errs, fmt.Errorf("command %s: the name %q has characters a command name cannot have (use letters, digits, - _ .)", path, base))
			continue
		}
		// One byte past the cap is enough for Parse to refuse it.
		f, err := safefile.ReadWithin(path, maxFile+1, "the commands folder", d.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading command %s: %w", path, err))
			continue
		}
		data := f.Data
		c, err := Parse(strings.Join(append(ns[:len(ns):len(ns)], base), ":"), path, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.Source = d.Source
		byName[c.Name] = c
	}
	return errs
}

// validPart reports whether s may be part of a command name.
func validPart(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// yamlLine finds the line numbers in yaml's messages.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// Parse reads one command file's data. Errors name path and, for the
// front matter, the file's line.
func Parse(name, path string, data []byte) (Command, error) {
	fail := func(line int, format string, args ...any) (Command, error) {
		where := path
		if line > 0 {
			where += ":" + strconv.Itoa(line)
		}
		return Command{}, fmt.Errorf("command %s: %s", where, fmt.Sprintf(format, args...))
	}
	if len(data) > maxFile {
		return fail(0, "%d bytes is more than the %d a command file may have", len(data), maxFile)
	}
	data = bytes.TrimPrefix(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\ufeff"))
	c := Command{Name: name, Path: path, Body: string(data)}
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		c.Body = strings.TrimSpace(c.Body)
		return c, nil
	}
	front, body, ok := cutFrontMatter(rest)
	if !ok {
		return fail(1, "the front matter opened here has no closing --- line")
	}
	front, hint := cutArgumentHint(front)
	var fm struct {
		Description  string    `yaml:"description"`
		AllowedTools yaml.Node `yaml:"allowed-tools"`
		Model        string    `yaml:"model"`
	}
	if err := yaml.Unmarshal(front, &fm); err != nil {
		// yaml counts lines from the front matter's first, the file's second.
		msg := yamlLine().ReplaceAllStringFunc(strings.TrimPrefix(err.Error(), "yaml: "), func(s string) string {
			n, _ := strconv.Atoi(strings.TrimPrefix(s, "line "))
			return "line " + strconv.Itoa(n+1)
		})
		line := 0
		if m := yamlLine().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
		}
		return fail(line, "front matter: %s", msg)
	}
	c.Description, c.Model = strings.TrimSpace(fm.Description), strings.TrimSpace(fm.Model)
	c.ArgumentHint = hint
	tools, err := scalarOrList(&fm.AllowedTools, ",")
	if err != nil {
		return fail(fm.AllowedTools.Line+1, "allowed-tools: %v", err)
	}
	for _, t := range strings.Split(tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			c.AllowedTools = append(c.AllowedTools, t)
		}
	}
	c.Body = strings.TrimSpace(string(body))
	return c, nil
}

// cutArgumentHint takes the argument-hint line out of the front matter
// (left blank, so yaml's line numbers stay right) and returns its raw
// value: hints are written "[pr-number] [priority]", which is not YAML.
func cutArgumentHint(front []byte) ([]byte, string) {
	lines := bytes.Split(front, []byte("\n"))
	hint := ""
	for i, l := range lines {
		if v, ok := bytes.CutPrefix(l, []byte("argument-hint:")); ok {
			hint = strings.TrimSpace(string(v))
			if len(hint) >= 2 && (hint[0] == '"' || hint[0] == '\'') && hint[len(hint)-1] == hint[0] {
				hint = hint[1 : len(hint)-1]
			}
			lines[i] = nil
		}
	}
	return bytes.Join(lines, []byte("\n")), hint
}

// cutFrontMatter splits what follows the opening "---" line at the
// closing one.
func cutFrontMatter(rest []byte) (front, body []byte, ok bool) {
	if b, ok := bytes.CutPrefix(rest, []byte("---")); ok && (len(b) == 0 || b[0] == '\n') {
		return nil, b, true // empty front matter
	}
	for i := 0; ; {
		j := bytes.Index(rest[i:], []byte("\n---"))
		if j < 0 {
			return nil, nil, false
		}
		end := i + j + 4
		if end == len(rest) || rest[end] == '\n' {
			return rest[:i+j], rest[end:], true
		}
		i = end
	}
}

// scalarOrList accepts one string or a list of strings, joined by sep.
func scalarOrList(n *yaml.Node, sep string) (string, error) {
	switch n.Kind {
	case 0:
		return "", nil
	case yaml.ScalarNode:
		return strings.TrimSpace(n.Value), nil
	case yaml.SequenceNode:
		var raw []string
		if err := n.Decode(&raw); err != nil {
			return "", fmt.Errorf("a string or a list of strings: %w", err)
		}
		return strings.Join(raw, sep), nil
	}
	return "", errors.New("a string or a list of strings")
}
