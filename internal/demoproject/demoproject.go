// Package demoproject is the small Go project the benchmarks' sessions
// work on, and the 10-round session they script on it: plybench runs it
// as a process, the session benchmark of internal/cli in process, and
// both must measure the same work. It writes files under the directory
// it is given and touches nothing else.
package demoproject

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Call is one scripted tool call.
type Call struct {
	Name string
	Args map[string]any
}

// ToolRounds are the 10-round session's tool rounds: nine replies of tool
// calls that touch every kind of tool (edits and shell commands, which
// take checkpoints; two reads as one parallel batch). The tenth reply is
// the answer, FinalText. Paths are relative to the project's root.
func ToolRounds() [][]Call {
	return [][]Call{
		{{"read_file", map[string]any{"file_path": "main.go"}}},
		{{"grep_search", map[string]any{"pattern": `func \w+`}}},
		{{"glob", map[string]any{"pattern": "**/*.go"}}},
		{{"edit", map[string]any{"file_path": "main.go",
			"old_string": `fmt.Println("hello")`, "new_string": `fmt.Println("hello, world")`}}},
		{{"run_shell_command", map[string]any{"command": "echo ok"}}},
		{
			{"read_file", map[string]any{"file_path": "pkg/util/util.go", "offset": 10, "limit": 40}},
			{"grep_search", map[string]any{"pattern": "TODO", "glob": "*.go"}},
		},
		{{"list_directory", map[string]any{"path": "pkg"}}},
		{{"edit", map[string]any{"file_path": "pkg/util/util.go",
			"old_string": "// TODO: handle the error", "new_string": "// The error is handled by the caller."}}},
		{{"run_shell_command", map[string]any{"command": "ls pkg"}}},
	}
}

// FinalText is the session's answer after its tool rounds.
const FinalText = "Done."

// Write writes the project into dir: a module of a few dozen Go files,
// so that grep and glob have something to walk without the walk
// dominating a round, with a .gitignore and two files it ignores.
func Write(dir string) error {
	files := map[string]string{
		"go.mod":     "module example.com/demo\n\ngo 1.22\n",
		".gitignore": "build/\n*.log\n",
		"main.go":    "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
		"build/x.go": "package build // ignored\n",
		"debug.log":  "ignored\n",
	}
	var util strings.Builder
	util.WriteString("package util\n\n")
	for i := range 60 {
		fmt.Fprintf(&util, "// F%d does step %d.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i, i)
		if i == 5 {
			util.WriteString("// TODO: handle the error\n")
		}
	}
	files["pkg/util/util.go"] = util.String()
	for i := range 40 {
		files[fmt.Sprintf("pkg/p%02d/p.go", i)] = fmt.Sprintf("package p%02d\n\n// TODO: document\nfunc Do%d() int { return %d }\n", i, i, i)
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("writing the demo project: %w", err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return fmt.Errorf("writing the demo project: %w", err)
		}
	}
	return nil
}
