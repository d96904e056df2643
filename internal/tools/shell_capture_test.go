package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestShellOutputCutOnLinesAndSaved: a long output keeps whole lines at
// both ends, says how many lines were left out and where the whole output
// is, and that file holds every byte.
func TestShellOutputCutOnLinesAndSaved(t *testing.T) {
	sh, _ := shellTestTool(t)
	saved := t.TempDir()
	sh.SetOutputDir(saved)
	res := searchTestRun(t, sh, map[string]any{"command": "seq 1 20000"})
	var full strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	all := full.String()
	m := regexp.MustCompile(`(?s)Output: (.*\n)\[\.\.\. (\d+) lines \((\d+) characters\) omitted\. The whole output \((\d+) bytes\) is saved in (\S+) : read it in ranges with read_file \(offset, limit\) or search it with grep_search\. 0 of the \d+ omitted lines match error\|fail\|panic \(ignoring case\)\. \.\.\.\]\n(.*)Exit code: 0\n?$`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("no line-cut note in:\n%s", regexp.MustCompile(`\[\.\.\..*`).FindString(res.Output))
	}
	head, lines, chars, size, path, tail := m[1], m[2], m[3], m[4], m[5], m[6]
	if !strings.HasPrefix(all, head) || !strings.HasSuffix(all, tail) {
		t.Errorf("head or tail is not the output's own")
	}
	if !strings.HasSuffix(head, "\n") || !strings.HasPrefix(all[len(all)-len(tail)-1:], "\n") {
		t.Errorf("a cut falls inside a line: head ends %q, tail starts %q", head[max(0, len(head)-10):], tail[:min(10, len(tail))])
	}
	if n, _ := strconv.Atoi(chars); n != len(all)-len(head)-len(tail) {
		t.Errorf("omitted %s characters, want %d", chars, len(all)-len(head)-len(tail))
	}
	if n, _ := strconv.Atoi(lines); n != strings.Count(all, "\n")-strings.Count(head, "\n")-strings.Count(tail, "\n") {
		t.Errorf("omitted %s lines", lines)
	}
	if len(head)+len(tail) > shellMaxOutput {
		t.Errorf("%d characters kept, over the cap %d", len(head)+len(tail), shellMaxOutput)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != all || size != strconv.Itoa(len(all)) {
		t.Errorf("the saved output: %d bytes (%s said), %v", len(data), size, err)
	}
	if filepath.Dir(path) != saved {
		t.Errorf("saved in %s, want %s", path, saved)
	}
	// A short output is not saved.
	short := searchTestRun(t, sh, map[string]any{"command": "echo hi"})
	if strings.Contains(short.Output, "saved in") {
		t.Errorf("a short output was saved: %s", short.Output)
	}
	if entries, _ := os.ReadDir(saved); len(entries) != 1 {
		t.Errorf("%d files saved, want 1", len(entries))
	}
}

func TestShellOutputLimitSetting(t *testing.T) {
	sh, _ := shellTestTool(t)
	sh.SetOutputLimit(1000)
	res := searchTestRun(t, sh, map[string]any{"command": "seq 1 2000"})
	out := res.Output[strings.Index(res.Output, "Output: ")+8 : strings.Index(res.Output, "Exit code:")]
	if len(out) > 1000+300 || !strings.Contains(out, "lines (") {
		t.Errorf("a 1000-character limit kept %d:\n%s", len(out), out)
	}
	if strings.Contains(out, "saved in") || !strings.Contains(out, "redirect") {
		t.Errorf("without a directory to save in, the note should say how to see the rest:\n%s", out)
	}
}
