package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestRewindReportsFilesOverTheCap: a file over checkpointing.maxFileBytes
// changed by a prompt is named by ply rewind as not restored, and one
// created over the cap as left in place; neither is silently lost.
func TestRewindReportsFilesOverTheCap(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{"checkpointing": {"maxFileBytes": 100}}`, 0o644)
	writeFile(t, filepath.Join(dir, "small.txt"), "small\n", 0o644)
	writeFile(t, filepath.Join(dir, "big.bin"), strings.Repeat("b", 200), 0o644)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s1", "run_shell_command", mustJSON(map[string]string{
			"command": "echo changed > small.txt && printf '%0300d' 0 > big.bin && printf '%0300d' 1 > huge-new.bin"}))},
		fp.Turn{fp.Text("done")},
	)
	if r := runPlyHome(t, dir, home, srv, "-y", "-p", "grow the files"); r.code != 0 {
		t.Fatalf("prompt: exit %d %s", r.code, r.stderr)
	}
	r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code")
	if r.code != 0 {
		t.Fatalf("rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"Not restored (over the checkpoint size cap, its content was not saved): " + filepath.Join(dir, "big.bin"),
		"Left in place (over the size cap, so deleting or replacing it could not be undone): " + filepath.Join(dir, "huge-new.bin"),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rewind output lacks %q:\n%s", want, r.stdout)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "small.txt")); string(b) != "small\n" {
		t.Errorf("small.txt not restored: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "huge-new.bin")); err != nil {
		t.Errorf("huge-new.bin, over the cap, was deleted: %v", err)
	}
}
