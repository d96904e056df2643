package callsummary

import (
	"strings"
	"testing"
)

func TestSubject(t *testing.T) {
	for _, tc := range []struct{ name, args, want string }{
		{"grep_search", `{"pattern":"countValue"}`, `"countValue" in .`},
		{"grep_search", `{"pattern":"a\"b","path":"internal","glob":"*.go"}`, `"a\"b" in internal (*.go)`},
		{"read_file", `{"file_path":"internal/x.go","offset":9,"limit":31}`, "internal/x.go:10-40"},
		{"read_file", `{"file_path":"internal/x.go","offset":100}`, "internal/x.go:101-"},
		{"read_file", `{"file_path":"internal/x.go","limit":20}`, "internal/x.go:1-20"},
		{"read_file", `{"file_path":"a.go"}`, "a.go"},
		{"run_shell_command", `{"command":"go test ./...","description":"run tests"}`, "go test ./..."},
		{"run_shell_command", `{"command":"make\n  all","directory":"sub","is_background":true}`, "make all (in sub) &"},
		{"glob", `{"pattern":"**/*.go","path":"cmd"}`, "**/*.go in cmd"},
		{"glob", `{"pattern":"**/*.go"}`, "**/*.go"},
		{"list_directory", `{}`, "."},
		{"read_many_files", `{"paths":["a.go","b.go"]}`, "a.go, b.go"},
		{"edit", `{"file_path":"x.go","old_string":"a","new_string":"b"}`, "x.go"},
		{"web_search", `{"query":"go 1.26 release"}`, `"go 1.26 release"`},
		{"web_fetch", `{"url":"http://example.test/x"}`, "http://example.test/x"},
		{"agent", `{"description":"mark final","prompt":"…"}`, "mark final"},
		{"todo_write", `{"todos":[{},{},{}]}`, "3 tasks"},
		{"task_stop", `{"task_id":"bg_1"}`, "bg_1"},
		{"mcp__srv__tool", `{"x":1}`, ""},
		{"read_file", `not json`, ""},
		{"grep_search", `{"pattern":1}`, ""},
	} {
		if got := Subject(tc.name, tc.args); got != tc.want {
			t.Errorf("Subject(%s, %s) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

func FuzzSubject(f *testing.F) {
	for _, s := range []string{`{"pattern":"x","path":"."}`, `{"file_path":"a","offset":-5,"limit":1e300}`,
		`{"command":"a\nb"}`, `{"todos":null}`, `[]`, ``, `{"offset":1e20}`} {
		for _, n := range []string{"grep_search", "read_file", "run_shell_command", "todo_write", "glob", "x"} {
			f.Add(n, s)
		}
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		if s := Subject(name, args); strings.ContainsAny(s, "\n\r") {
			t.Fatalf("Subject(%q, %q) = %q spans lines", name, args, s)
		}
	})
}
