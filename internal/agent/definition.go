// Package agent provides subagents: the `agent` tool, which hands a task
// to a nested agent loop with its own history, tools and caps and returns
// its final report as the call's result, and the definitions of the
// configured subagents (.ply/agents/*.md). A subagent may run in the
// background (run_in_background, when the Runner is a Launcher); the
// send_message tool carries messages between it and its parent.
//
// It does not run the loop itself: a Runner, given by the entry layer,
// builds the nested chat, scheduler and loop. It never prints and never
// asks the user; the nested calls meet the same permission policy and
// approver as the parent's.
package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// GeneralPurpose is the built-in subagent offered when no definition
// names another.
const GeneralPurpose = "general-purpose"

// Definition is one subagent.
type Definition struct {
	Name        string
	Description string
	// Tools lists the tools the subagent may use; empty means every tool
	// of the parent except the agent tool itself.
	Tools []string
	// Model overrides the parent's model; empty inherits it.
	Model string
	// MaxTurns caps the subagent's rounds; zero takes the default.
	MaxTurns int
	// Prompt is the subagent's own instructions, added to the system
	// prompt.
	Prompt string
	// Isolation is where the subagent works: "" in the parent's
	// workspace, IsolationWorktree in a git worktree of its own, whose
	// branch and changes its report names.
	Isolation string
	// Path is the file it came from; empty for a built-in.
	Path string
}

// IsolationWorktree is the isolation of a subagent that works in a git
// worktree of its own.
const IsolationWorktree = "worktree"

// Explore is the built-in read-only subagent.
const Explore = "explore"

// Builtin returns the built-in definitions.
func Builtin() []Definition {
	return []Definition{{
		Name: GeneralPurpose,
		Description: "A general-purpose agent for researching a question across the codebase, searching for code, " +
			"and carrying out a self-contained multi-step task. Use it to keep long searches out of your own context.",
	}, {
		Name: Explore,
		Description: "A read-only agent for exploring the codebase fast: finding files, searching code, answering how " +
			"something works. It cannot edit files or run commands.",
		Tools:  []string{"list_directory", "read_file", "read_many_files", "grep_search", "glob", "web_fetch"},
		Prompt: "Only read and search; report what you found with file paths and line numbers.",
	}}
}

// maxDefinitionFile bounds a definition file: it becomes a system prompt.
const maxDefinitionFile = 64 << 10

// validName reports whether name is lower-case letters, digits, - and _,
// starting with a letter or digit, at most 64 bytes. (A function, not a
// regexp: compiling one at package init costs every start.)
func validName(name string) bool {
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

// Load reads the definitions in dirs (the user's agents directory, then
// the project's), later directories overriding earlier ones by name, over
// the built-ins. A file that does not parse is reported in errs, naming
// the file, and skipped: one broken definition never disables the rest. A
// missing directory is not an error.
func Load(dirs ...string) (defs []Definition, errs []error) {
	byName := map[string]Definition{}
	for _, d := range Builtin() {
		byName[d.Name] = d
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("reading subagents in %s: %w", dir, err))
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			d, err := LoadFile(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			byName[d.Name] = d
		}
	}
	for _, d := range byName {
		defs = append(defs, d)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs, errs
}

// LoadFile parses one definition: YAML front matter between "---" lines
// (name, description, tools, model, max_turns, isolation), then the prompt.
func LoadFile(path string) (Definition, error) {
	fail := func(format string, args ...any) (Definition, error) {
		return Definition{}, fmt.Errorf("subagent %s: %s", path, fmt.Sprintf(format, args...))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fail("%v", err)
	}
	if len(b) > maxDefinitionFile {
		return fail("%d bytes is more than the %d a definition may have", len(b), maxDefinitionFile)
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	rest, ok := bytes.CutPrefix(b, []byte("---\n"))
	if !ok {
		return fail("it must start with front matter between two --- lines")
	}
	front, body, ok := bytes.Cut(rest, []byte("\n---"))
	if !ok {
		return fail("the front matter has no closing --- line")
	}
	body = bytes.TrimPrefix(bytes.TrimLeft(body, "-"), []byte("\n"))
	var fm struct {
		Name        string    `yaml:"name"`
		Description string    `yaml:"description"`
		Tools       yaml.Node `yaml:"tools"`
		Model       string    `yaml:"model"`
		MaxTurns    int       `yaml:"max_turns"`
		Isolation   string    `yaml:"isolation"`
	}
	if err := yaml.Unmarshal(front, &fm); err != nil {
		return fail("front matter: %v", err)
	}
	d := Definition{
		Name: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description),
		Model: strings.TrimSpace(fm.Model), MaxTurns: fm.MaxTurns,
		Prompt: strings.TrimSpace(string(body)), Path: path, Isolation: strings.TrimSpace(fm.Isolation),
	}
	switch {
	case d.Name == "":
		return fail(`front matter needs "name"`)
	case !validName(d.Name):
		return fail("name %q: use lower-case letters, digits, - and _ (at most 64)", d.Name)
	case d.Description == "":
		return fail(`front matter needs "description": the model picks a subagent by it`)
	case d.MaxTurns < 0:
		return fail("max_turns %d is negative", d.MaxTurns)
	case d.Isolation != "" && d.Isolation != IsolationWorktree:
		return fail("isolation %q: the only isolation is %q (omit it to work in the parent's workspace)", d.Isolation, IsolationWorktree)
	}
	tools, err := toolList(&fm.Tools)
	if err != nil {
		return fail("tools: %v", err)
	}
	d.Tools = tools
	return d, nil
}

// toolList accepts a YAML list or one comma-separated string, as both
// styles are common in other agents' definition files.
func toolList(n *yaml.Node) ([]string, error) {
	var raw []string
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		raw = strings.Split(n.Value, ",")
	case yaml.SequenceNode:
		if err := n.Decode(&raw); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("a list of tool names, or one comma-separated string")
	}
	var out []string
	for _, t := range raw {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}
