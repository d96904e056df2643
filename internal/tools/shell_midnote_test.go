package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestShellOutputKeepsMoreTailAndCountsErrors: a long output keeps more
// of its end, where errors are, than of its start, and the note on the
// left-out middle says how many of its lines look like errors.
func TestShellOutputKeepsMoreTailAndCountsErrors(t *testing.T) {
	t.Parallel()
	sh, _ := shellTestTool(t)
	sh.SetOutputDir(t.TempDir())
	// 20000 lines; among them, far from both ends, 3 errors, 2 failures
	// and a panic (one line has two of the words and counts once).
	script := `i=1; while [ $i -le 20000 ]; do
case $i in
5000) echo "ERROR: disk full" ;;
6000) echo "test failed: Error in setup" ;;
7000) echo "FAIL pkg/x" ;;
8000) echo "panic: nil map" ;;
9000) echo "an error again" ;;
*) echo "line $i" ;;
esac; i=$((i+1)); done`
	res := searchTestRun(t, sh, map[string]any{"command": script})
	m := regexp.MustCompile(`(?s)Output: (.*\n)\[\.\.\. (\d+) lines \(\d+ characters\) omitted\. The whole output \(\d+ bytes\) is saved in (\S+) : read it in ranges with read_file \(offset, limit\) or search it with grep_search\. (\d+) of the \d+ omitted lines match error\|fail\|panic \(ignoring case\): grep_search with pattern "\(\?i\)error\|fail\|panic" in the saved file finds them\. \.\.\.\]\n(.*)Exit code: 0\n?$`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("no note with the error count in:\n%s", regexp.MustCompile(`\[\.\.\..*`).FindString(res.Output))
	}
	head, tail := m[1], m[5]
	if n, _ := strconv.Atoi(m[4]); n != 5 {
		t.Errorf("%s lines matching error|fail|panic counted, want 5", m[4])
	}
	if 10*len(tail) < 14*len(head) {
		t.Errorf("kept %d characters of the start and %d of the end; want the end weighted", len(head), len(tail))
	}
	if !strings.HasSuffix(tail, fmt.Sprintf("line %d\n", 20000)) {
		t.Errorf("tail does not end the output: %q", tail[max(0, len(tail)-20):])
	}
}

// TestShellCaptureCountsErrorsAcrossWrites: a matching word split between
// two writes, and the lines cut at the edges of the kept parts, count.
func TestShellCaptureCountsErrorsAcrossWrites(t *testing.T) {
	c := newShellCapture(40)
	c.Write([]byte("head 1\nhead 2\n"))
	for i := 0; i < 20; i++ {
		c.Write([]byte("ordinary line\n"))
	}
	c.Write([]byte("a Pan"))
	c.Write([]byte("ic here\n"))
	for i := 0; i < 20; i++ {
		c.Write([]byte("more ordinary\n"))
	}
	c.Write([]byte("end\n"))
	out := c.String()
	if !strings.Contains(out, " 1 of the 40 omitted lines matches error|fail|panic") {
		t.Errorf("want one match counted:\n%s", out)
	}
}

// TestShellDescriptionStatesTheOutputCap: the description gives the cap
// the output is actually cut to, and that the end is the larger part.
func TestShellDescriptionStatesTheOutputCap(t *testing.T) {
	sh, _ := shellTestTool(t)
	if d := sh.Description(); !strings.Contains(d, "at most 16000 characters") || !strings.Contains(d, "the beginning and, larger, the end") {
		t.Errorf("default description: %s", d)
	}
	sh.SetOutputLimit(1000)
	if d := sh.Description(); !strings.Contains(d, "at most 1000 characters") {
		t.Errorf("description with a 1000-character limit: %s", d)
	}
}
