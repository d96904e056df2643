package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestReadManyNumbersLinesAsReadFile(t *testing.T) {
	root, tool := rmTree(t, map[string]string{
		"a.go":  "package a\n\nfunc A() {}\n",
		"b.txt": "\uFEFFone\r\ntwo",
	})
	res := rmExec(t, tool, map[string]any{"paths": []string{"a.go", "b.txt"}})
	rmWantFiles(t, root, res, "a.go", "b.txt")
	for _, want := range []string{
		"--- " + filepath.Join(root, "a.go") + " ---\n" + numberPrefix(1) + "package a\n" + numberPrefix(2) + "\n" + numberPrefix(3) + "func A() {}\n\n",
		"--- " + filepath.Join(root, "b.txt") + " ---\n" + numberPrefix(1) + "one\r\n" + numberPrefix(2) + "two\n",
	} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	// The same lines as read_file shows them.
	rf := ftExec(t, NewReadFile(tool.ws), map[string]any{"file_path": "a.go"})
	if !strings.Contains(res.Output, rf.Output+"\n") {
		t.Errorf("read_file shows %q, read_many_files:\n%s", rf.Output, res.Output)
	}
}
