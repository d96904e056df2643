package sysprompt

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGoldenPrompts pins the prompt the model sees in each approval mode,
// headless and interactive, and a subagent's: a change to them is a
// reviewed diff of testdata/golden, not an accident. Run with -update to
// rewrite them.
func TestGoldenPrompts(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	repo := &Repo{
		Status:  []string{" M main.go", "?? notes.txt"},
		Commits: []string{"abc1234 add the parser", "def5678 first commit"},
		Listing: []string{"README.md", "go.mod", "internal/", "main.go"},
		Git:     true,
	}
	tools := []string{"read_file", "edit", "write_file", "run_shell_command", "grep_search"}
	base := Env{Workspace: "/home/u/project", Tools: tools, Now: now, Repo: repo}
	cases := map[string]Env{}
	for _, mode := range []string{"default", "auto-edit", "auto", "plan", "yolo"} {
		e := base
		e.Mode = mode
		cases[mode+"-headless"] = e
		e.Interactive = true
		cases[mode+"-interactive"] = e
	}
	sb := base
	sb.Mode, sb.Sandbox = "default", "shell commands may write only in the workspace and the temp directory, and may not use the network"
	cases["default-sandbox"] = sb
	noSandbox := base
	noSandbox.Mode, noSandbox.NoAutoSandbox = "auto", "the kernel was built without Landlock"
	cases["auto-nosandbox"] = noSandbox
	sub := Env{Workspace: "/home/u/project", Tools: []string{"read_file", "grep_search", "glob"}, Now: now, Mode: "default", Subagent: true,
		Append: "You are the explore subagent."}
	cases["subagent-explore"] = sub
	for name, env := range cases {
		// The golden files are the same on every platform.
		got := strings.ReplaceAll(Build(env), runtime.GOOS+"/"+runtime.GOARCH, "GOOS/GOARCH")
		path := filepath.Join("testdata", "golden", name+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update to create it)", name, err)
		}
		if got != string(want) {
			t.Errorf("%s: the prompt changed; review the diff and run go test ./internal/sysprompt -update\ngot:\n%s", name, got)
		}
	}
}
