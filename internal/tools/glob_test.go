package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestSearchToolSchemas(t *testing.T) {
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sh := NewShell(ws)
	defer sh.Close()
	auto := NewShell(ws) // in auto mode, with the arguments that leave its sandbox
	defer auto.Close()
	auto.OfferEscalation(true)
	for _, tc := range []struct {
		tool     Tool
		name     string
		kind     Kind
		required []string
		props    []string
	}{
		{NewGlob(ws), "glob", KindSearch, []string{"pattern"}, []string{"pattern", "path"}},
		{NewGrep(ws), "grep_search", KindSearch, []string{"pattern"}, []string{"pattern", "path", "glob", "limit", "case_insensitive", "context", "before", "after", "output_mode"}},
		{sh, "run_shell_command", KindExecute, []string{"command"}, []string{"command", "description", "directory", "is_background", "timeout"}},
		{auto, "run_shell_command", KindExecute, []string{"command"}, []string{"command", "description", "directory", "is_background", "run_outside_sandbox", "justification", "timeout"}},
	} {
		if tc.tool.Name() != tc.name || tc.tool.Kind() != tc.kind || tc.tool.Description() == "" {
			t.Errorf("%s: name %q kind %q", tc.name, tc.tool.Name(), tc.tool.Kind())
		}
		var s struct {
			Type                 string                    `json:"type"`
			Required             []string                  `json:"required"`
			AdditionalProperties *bool                     `json:"additionalProperties"`
			Properties           map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tc.tool.Schema(), &s); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", tc.name, err)
		}
		if s.Type != "object" || fmt.Sprint(s.Required) != fmt.Sprint(tc.required) || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: schema %+v", tc.name, s)
		}
		if len(s.Properties) != len(tc.props) {
			t.Errorf("%s: %d properties, want %d", tc.name, len(s.Properties), len(tc.props))
		}
		for _, p := range tc.props {
			if d, _ := s.Properties[p]["description"].(string); d == "" {
				t.Errorf("%s: property %q has no description", tc.name, p)
			}
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(tc.tool.Schema())))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("schema.json", doc); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("schema.json"); err != nil {
			t.Errorf("%s: not a valid JSON Schema: %v", tc.name, err)
		}
	}
}

// globTestTouch sets the modification time of root/rel to age ago.
func globTestTouch(t *testing.T, root, rel string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	if err := os.Chtimes(filepath.Join(root, rel), when, when); err != nil {
		t.Fatal(err)
	}
}

func TestGlobNewestFirstAndIgnored(t *testing.T) {
	root, ws := searchTestWorkspace(t, map[string]string{
		".gitignore":          "gen/\n*.pb.go\n",
		"main.go":             "",
		"cmd/app/app.go":      "",
		"internal/x/x.go":     "",
		"internal/x/x.pb.go":  "",
		"gen/out.go":          "",
		"internal/.gitignore": "!keep.pb.go\n",
		"internal/keep.pb.go": "",
		"README.md":           "",
		".git/hooks/h.go":     "",
	})
	globTestTouch(t, root, "main.go", 3*time.Hour)
	globTestTouch(t, root, "cmd/app/app.go", time.Hour)
	globTestTouch(t, root, "internal/x/x.go", 2*time.Hour)
	globTestTouch(t, root, "internal/keep.pb.go", 4*time.Hour)

	res := searchTestRun(t, NewGlob(ws), map[string]any{"pattern": "**/*.go"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	want := fmt.Sprintf("Found 4 file(s) matching \"**/*.go\" in %s, sorted by modification time (newest first):\n%s\n%s\n%s\n%s",
		root,
		filepath.Join(root, "cmd/app/app.go"),
		filepath.Join(root, "internal/x/x.go"),
		filepath.Join(root, "main.go"),
		filepath.Join(root, "internal/keep.pb.go"))
	if res.Output != want {
		t.Errorf("got:\n%s\nwant:\n%s", res.Output, want)
	}
}

func TestGlobPatternsAndPaths(t *testing.T) {
	root, ws := searchTestWorkspace(t, map[string]string{
		"a.go":           "",
		"README.MD":      "",
		"docs/guide.md":  "",
		"docs/x/deep.md": "",
		"src/b.go":       "",
		"src/c.ts":       "",
		"src/d.tsx":      "",
	})
	g := NewGlob(ws)
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"pattern": "*.go"}, []string{"a.go"}}, // "*" does not descend
		{map[string]any{"pattern": "*.md"}, []string{"README.MD"}},
		{map[string]any{"pattern": "**/*.md"}, []string{"README.MD", "docs/guide.md", "docs/x/deep.md"}},
		{map[string]any{"pattern": "src/*.{ts,tsx}"}, []string{"src/c.ts", "src/d.tsx"}},
		{map[string]any{"pattern": "*.go", "path": "src"}, []string{"src/b.go"}},
		{map[string]any{"pattern": "*.go", "path": filepath.Join(root, "src")}, []string{"src/b.go"}},
		{map[string]any{"pattern": "*.go", "path": "undefined"}, []string{"a.go"}},
		{map[string]any{"pattern": filepath.Join(root, "docs", "**", "*.md")}, []string{"docs/guide.md", "docs/x/deep.md"}},
		{map[string]any{"pattern": "../src/b.go", "path": "docs"}, []string{"src/b.go"}},
	} {
		res := searchTestRun(t, g, tc.args)
		if res.IsError {
			t.Errorf("%v: %s", tc.args, res.Output)
			continue
		}
		lines := strings.Split(res.Output, "\n")[1:]
		var got []string
		for _, l := range lines {
			got = append(got, strings.TrimPrefix(l, root+"/"))
		}
		if fmt.Sprint(slices.Sorted(slices.Values(got))) != fmt.Sprint(tc.want) {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestGlobNoMatchAndErrors(t *testing.T) {
	root, ws := searchTestWorkspace(t, map[string]string{"a.go": "", "f.txt": ""})
	g := NewGlob(ws)

	res := searchTestRun(t, g, map[string]any{"pattern": "**/*.rs"})
	if res.IsError || res.Output != fmt.Sprintf("No files found matching pattern \"**/*.rs\" in %s", root) {
		t.Errorf("no match: %+v", res)
	}
	res = searchTestRun(t, g, map[string]any{"pattern": "missing/**/*.go"})
	if res.IsError || !strings.HasPrefix(res.Output, "No files found") {
		t.Errorf("missing base: %+v", res)
	}
	for _, tc := range []struct {
		args    any
		errType string
	}{
		{map[string]any{"pattern": "*", "path": "/"}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"pattern": "*", "path": "../.."}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"pattern": "../../*"}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"pattern": "/etc/*"}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"pattern": "*", "path": "f.txt"}, "PATH_IS_NOT_A_DIRECTORY"},
		{map[string]any{"pattern": "*", "path": "nope"}, "FILE_NOT_FOUND"},
		{map[string]any{"pattern": "[unclosed"}, "INVALID_TOOL_PARAMS"},
		{map[string]any{"pattern": " "}, "INVALID_TOOL_PARAMS"},
		{`{"pattern": 3}`, "INVALID_TOOL_PARAMS"},
		{`not json`, "INVALID_TOOL_PARAMS"},
		{``, "INVALID_TOOL_PARAMS"},
	} {
		res := searchTestRun(t, g, tc.args)
		if !res.IsError || res.ErrorType != tc.errType || res.Output == "" {
			t.Errorf("%v: got %+v, want %s", tc.args, res, tc.errType)
		}
	}
}

func TestGlobCapsResults(t *testing.T) {
	files := map[string]string{}
	for i := range globMaxResults + 7 {
		files[fmt.Sprintf("d%d/f%04d.txt", i%10, i)] = ""
	}
	_, ws := searchTestWorkspace(t, files)
	res := searchTestRun(t, NewGlob(ws), map[string]any{"pattern": "**/*.txt"})
	lines := strings.Split(res.Output, "\n")
	if !strings.HasPrefix(lines[0], fmt.Sprintf("Found %d file(s)", globMaxResults+7)) {
		t.Errorf("header %q", lines[0])
	}
	if n := len(lines) - 2; n != globMaxResults {
		t.Errorf("%d paths listed, want %d", n, globMaxResults)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "[7 more file(s) not shown") {
		t.Errorf("last line %q", last)
	}
}
