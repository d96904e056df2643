package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// toolSessionTurns is plybench's 10-round session: nine rounds of tool
// calls touching every kind of tool (edits and shell commands included,
// which take checkpoints), then the answer.
func toolSessionTurns(i int) []fp.Turn {
	type call struct {
		name string
		args map[string]any
	}
	rounds := [][]call{
		{{"read_file", map[string]any{"file_path": "main.go"}}},
		{{"grep_search", map[string]any{"pattern": `func \w+`}}},
		{{"glob", map[string]any{"pattern": "**/*.go"}}},
		{{"edit", map[string]any{"file_path": "main.go",
			"old_string": `fmt.Println("hello")`, "new_string": `fmt.Println("hello, world")`}}},
		{{"run_shell_command", map[string]any{"command": "echo ok"}}},
		{{"read_file", map[string]any{"file_path": "pkg/util/util.go", "offset": 10, "limit": 40}},
			{"grep_search", map[string]any{"pattern": "TODO", "glob": "*.go"}}},
		{{"list_directory", map[string]any{"path": "pkg"}}},
		{{"edit", map[string]any{"file_path": "pkg/util/util.go",
			"old_string": "// TODO: handle the error", "new_string": "// The error is handled by the caller."}}},
		{{"run_shell_command", map[string]any{"command": "ls pkg"}}},
	}
	var out []fp.Turn
	for r, calls := range rounds {
		var t fp.Turn
		for j, c := range calls {
			b, _ := json.Marshal(c.args)
			t = append(t, fp.ToolCall(fmt.Sprintf("c%d_%d_%d", i, r, j), c.name, string(b)))
		}
		out = append(out, t)
	}
	return append(out, fp.Turn{fp.Text("Done.")})
}

// toolSessionWorkspace writes the small Go module the session works on.
func toolSessionWorkspace(tb testing.TB, dir string) {
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
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkToolSession runs plybench's 10-round session in-process, each
// iteration in a fresh workspace and a fresh PLY_HOME (so a new checkpoint
// store), so that where a round waits (checkpoints, syncs, the shell's
// guardian) shows in -trace and -cpuprofile without process start-up.
func BenchmarkToolSession(b *testing.B) {
	srv := fp.NewServer()
	defer srv.Close()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir, home := b.TempDir(), b.TempDir()
		toolSessionWorkspace(b, dir)
		env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
		srv.Append(toolSessionTurns(i)...)
		b.StartTimer()
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"-y", "-p", "tidy the demo project"}, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return env[k] }, Cwd: dir})
		if code != 0 || out.String() != "Done.\n" {
			b.Fatalf("exit %d, stdout %q: %s", code, out.String(), errb.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10, "ns/round")
}
