package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goFile returns a Go file of n numbered statements inside one function
// that starts on line 3.
func goFile(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nfunc work() {\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\tstep(%d)\n", i)
	}
	b.WriteString("}\n")
	return b.String()
}

func TestEditResultSaysWhereTheChangeNowIs(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "w.go")
	ftWriteFile(t, path, goFile(30))
	// step(10) is line 13; it becomes three lines.
	res := ftExec(t, NewEdit(ws), map[string]any{"file_path": "w.go",
		"old_string": "\tstep(10)\n", "new_string": "\tstep(10)\n\tstep(10.5)\n\tstep(10.7)\n"})
	ftWantOK(t, res)
	for _, want := range []string{
		"has been updated (1 replacement)",
		"now lines 13-15",
		// A numbered snippet around the change, as read_file numbers lines.
		numberPrefix(10) + "\tstep(7)\n",
		numberPrefix(14) + "\tstep(10.5)\n",
		numberPrefix(18) + "\tstep(13)",
		// The diff names the enclosing function, as git does.
		"@@ -13,0 +14,2 @@ func work() {\n+\tstep(10.5)\n+\tstep(10.7)",
	} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, numberPrefix(9)) || strings.Contains(res.Output, numberPrefix(19)) {
		t.Errorf("snippet is wider than 3 lines around the change:\n%s", res.Output)
	}
}

func TestEditDiffIsMinimal(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "w.go")
	ftWriteFile(t, path, goFile(10))
	// Lines step(4) and step(6) change, step(5) between them does not.
	res := ftExec(t, NewEdit(ws), map[string]any{"file_path": "w.go",
		"old_string": "\tstep(4)\n\tstep(5)\n\tstep(6)\n", "new_string": "\tstep(40)\n\tstep(5)\n\tstep(60)\n"})
	ftWantOK(t, res)
	for _, out := range []string{res.Output, res.Display} {
		if strings.Contains(out, "-\tstep(5)") || strings.Contains(out, "+\tstep(5)") {
			t.Errorf("unchanged line shown as removed and added:\n%s", out)
		}
		if !strings.Contains(out, "func work() {") {
			t.Errorf("hunk header lacks the enclosing function:\n%s", out)
		}
	}
	if !strings.Contains(res.Output, "now lines 7-9") {
		t.Errorf("output lacks the new position:\n%s", res.Output)
	}
}

func TestEditResultForDeletion(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "w.go")
	ftWriteFile(t, path, goFile(10))
	res := ftExec(t, NewEdit(ws), map[string]any{"file_path": "w.go", "old_string": "\tstep(5)\n", "new_string": ""})
	ftWantOK(t, res)
	for _, want := range []string{"removed", "line 8", numberPrefix(8) + "\tstep(6)"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
}

func TestWriteFileOverwriteSaysWhatChanged(t *testing.T) {
	root, ws := ftWorkspace(t)
	path := filepath.Join(root, "w.go")
	ftWriteFile(t, path, goFile(30))
	content := strings.Replace(goFile(30), "\tstep(20)\n", "\tstep(20)\n\tcheck()\n", 1)
	res := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": "w.go", "content": content})
	ftWantOK(t, res)
	for _, want := range []string{
		"Successfully overwrote file",
		"now line 24",
		numberPrefix(24) + "\tcheck()\n",
		numberPrefix(21) + "\tstep(18)\n",
		"@@ -23,0 +24 @@ func work() {\n+\tcheck()",
	} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
}

// TestEditManyHunksStaysQuick: replace_all over every other line of a
// large file, with no declaration to find, answers quickly.
func TestEditManyHunksStaysQuick(t *testing.T) {
	root, ws := ftWorkspace(t)
	var b strings.Builder
	for i := range 100_000 {
		if i%2 == 0 {
			b.WriteString("x = old\n")
		} else {
			fmt.Fprintf(&b, "y = %d\n", i)
		}
	}
	ftWriteFile(t, filepath.Join(root, "big.txt"), b.String())
	start := time.Now()
	res := ftExec(t, NewEdit(ws), map[string]any{"file_path": "big.txt", "old_string": "old", "new_string": "new", "replace_all": true})
	ftWantOK(t, res)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	for _, want := range []string{"50000 replacements", "The changes are now at lines 1, 3, 5", "and 49990 more", "lines not shown", "diff truncated"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if len(res.Output) > 20000 {
		t.Errorf("output is %d bytes", len(res.Output))
	}
}

func TestWriteFileOverwriteNamesEachChangedPlace(t *testing.T) {
	root, ws := ftWorkspace(t)
	ftWriteFile(t, filepath.Join(root, "w.go"), goFile(40))
	content := strings.Replace(goFile(40), "\tstep(5)\n", "\tstep(5)\n\tcheck()\n", 1)
	content = strings.Replace(content, "\tstep(30)\n", "", 1)
	res := ftExec(t, NewWriteFile(ws), map[string]any{"file_path": "w.go", "content": content})
	ftWantOK(t, res)
	for _, want := range []string{"The changes are now at lines 9 and 34.", numberPrefix(9) + "\tcheck()\n", "...\n", numberPrefix(34) + "\tstep(31)\n"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, numberPrefix(20)) {
		t.Errorf("unchanged lines between the changes are shown:\n%s", res.Output)
	}
}

func TestEditResultWhenTheFileIsEmptied(t *testing.T) {
	root, ws := ftWorkspace(t)
	ftWriteFile(t, filepath.Join(root, "w.txt"), "only\n")
	res := ftExec(t, NewEdit(ws), map[string]any{"file_path": "w.txt", "old_string": "only\n", "new_string": ""})
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "The file is now empty.") || !strings.Contains(res.Output, "-only") {
		t.Errorf("output:\n%s", res.Output)
	}
}

func TestLooksLikeDecl(t *testing.T) {
	for _, l := range []string{"func (t *Edit) Execute(ctx context.Context) (Result, error) {", "    def f(self):", "class A:",
		"  async function load(url) {", "export default class View extends Base {", "    public void run(int n) {",
		"static int main(int argc, char **argv)", "pub(crate) fn parse(s: &str) -> Result<T> {", "impl Display for X {", "type Edit struct {"} {
		if !looksLikeDecl(l) {
			t.Errorf("%q not taken for a declaration", l)
		}
	}
	for _, l := range []string{"if (x) {", "\treturn foo(a,", "x = foo(", "} else if (y) {", "\tgo func() {", "\tdefer func() {",
		"for i := range n {", "\tfmt.Println(x)", "while (true) {", ""} {
		if looksLikeDecl(l) {
			t.Errorf("%q taken for a declaration", l)
		}
	}
}
