package cli

import (
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestNumericStringArgumentsReachTheTools: a model that quotes a number
// ("limit": "2") has its call run as if it had not, through the
// scheduler's schema check and the tool's own decoding.
func TestNumericStringArgumentsReachTheTools(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\nfour\nfive\n", 0o644)
	srv := fp.NewServer(
		fp.Turn{
			fp.ToolCall("r", "read_file", `{"file_path":"a.txt","offset":"1","limit":"2"}`),
			fp.ToolCall("g", "grep_search", `{"pattern":"three","context":"1","limit":"5"}`),
			fp.ToolCall("s", "run_shell_command", `{"command":"echo hi","timeout":"5000"}`),
		},
		fp.Turn{fp.Text("done")},
	)
	defer func() {
		srv.Close()
		for _, f := range srv.Failures() {
			t.Errorf("fakeprovider: %s", f)
		}
	}()
	r := runPly(t, dir, srv, "", "-y", "-p", "read it")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	out := toolOutputs(srv)
	if s := out["r"]; !strings.Contains(s, "     2\ttwo\n     3\tthree") || strings.Contains(s, "four") {
		t.Errorf("read_file with quoted offset and limit = %q", s)
	}
	if s := out["g"]; !strings.Contains(s, "two") || !strings.Contains(s, "three") || !strings.Contains(s, "four") {
		t.Errorf("grep_search with quoted context = %q", s)
	}
	if s := out["s"]; !strings.Contains(s, "hi") || strings.Contains(s, "Invalid arguments") {
		t.Errorf("run_shell_command with a quoted timeout = %q", s)
	}
}

// TestEditResultNumbersTheChangedLines: the result of an edit the model
// gets says where the new text now is and shows it numbered as read_file
// numbers lines.
func TestEditResultNumbersTheChangedLines(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "m.py"), "class A:\n    def f(self):\n        a = 1\n        b = 2\n        return a\n", 0o644)
	srv := fp.NewServer(
		fp.Turn{fp.ToolCall("e", "edit", `{"file_path":"m.py","old_string":"        b = 2\n","new_string":"        b = 3\n        c = 4\n"}`)},
		fp.Turn{fp.Text("done")},
	)
	defer func() {
		srv.Close()
		for _, f := range srv.Failures() {
			t.Errorf("fakeprovider: %s", f)
		}
	}()
	r := runPly(t, dir, srv, "", "-y", "-p", "edit it")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	s := toolOutputs(srv)["e"]
	for _, want := range []string{"now lines 4-5", "     4\t        b = 3\n     5\t        c = 4\n", "@@ -4 +4,2 @@ def f(self):\n-        b = 2\n+        b = 3\n+        c = 4"} {
		if !strings.Contains(s, want) {
			t.Errorf("edit result lacks %q:\n%s", want, s)
		}
	}
}
