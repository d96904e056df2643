package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// A command's long output reaches the model cut on line ends, with a note
// naming the file in the session's directory that holds all of it, which
// read_file then reads.
func TestLongShellOutputIsSavedWithTheSession(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s", "run_shell_command", `{"command":"seq 1 50000"}`)},
		fp.Turn{fp.Text("reading it")},
	)
	r := runPly(t, dir, srv, "", "-y", "-p", "count")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	got := toolText(t, srv, "s")
	m := regexp.MustCompile(`lines \(\d+ characters\) omitted\. The whole output \(288894 bytes\) is saved in (\S+) :`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no note naming the saved output: %s", regexp.MustCompile(`\[\.\.\..*`).FindString(got))
	}
	if len(got) > 17000 {
		t.Errorf("the model got %d characters of output, over the 16000 default", len(got))
	}
	if !strings.Contains(m[1], "shell-output") {
		t.Errorf("saved outside the session's directory: %s", m[1])
	}
	data, err := os.ReadFile(m[1])
	if err != nil || !strings.HasPrefix(string(data), "1\n2\n") || !strings.HasSuffix(string(data), "49999\n50000\n") {
		t.Errorf("saved output: %d bytes, %v", len(data), err)
	}
}
