package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestRewindKeepsFilesTheCheckpointIgnored: the model drops ".env" from
// .gitignore; rewinding the code puts .gitignore back and leaves the
// user's .env alone, since the checkpoint never recorded it.
func TestRewindKeepsFilesTheCheckpointIgnored(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".gitignore"), ".env\n", 0o644)
	writeFile(t, filepath.Join(dir, ".env"), "API_KEY=secret\n", 0o600)
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n", 0o644)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": filepath.Join(dir, ".gitignore"), "content": "bin/\n"}))},
		fp.Turn{fp.Text("done")},
	)
	if r := runPlyHome(t, dir, home, srv, "-y", "-p", "tidy the ignore file"); r.code != 0 {
		t.Fatalf("prompt: exit %d %s", r.code, r.stderr)
	}
	r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code")
	if r.code != 0 {
		t.Fatalf("rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".env")); err != nil || string(b) != "API_KEY=secret\n" {
		t.Fatalf(".env after the rewind: %q, %v\n%s", b, err, r.stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != ".env\n" {
		t.Errorf(".gitignore not restored: %q", b)
	}
	for _, want := range []string{"1 written, 0 deleted", "Left in place (ignored when the checkpoint was made, so never recorded): " + filepath.Join(dir, ".env")} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rewind output lacks %q:\n%s", want, r.stdout)
		}
	}
}
