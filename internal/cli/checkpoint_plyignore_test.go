package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// plyignoreRepo makes a git repository holding a tracked main.go and a
// .plyignore reading "*".
func plyignoreRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git program")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n", 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "main.go"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeFile(t, filepath.Join(dir, ".plyignore"), "*\n", 0o644)
	return dir
}

// A repository the user has not trusted cannot take its tracked files out
// of checkpoints with a .plyignore: the rewind puts main.go back.
func TestUntrustedPlyIgnoreCannotTurnCheckpointsOff(t *testing.T) {
	dir, home := plyignoreRepo(t), t.TempDir()
	main := filepath.Join(dir, "main.go")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": main, "content": "package main // broken\n"}))},
		fp.Turn{fp.Text("done")},
	)
	if r := runPlyHome(t, dir, home, srv, "-y", "-p", "edit main.go"); r.code != 0 {
		t.Fatalf("prompt: exit %d %s", r.code, r.stderr)
	}
	r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code")
	if r.code != 0 || !strings.Contains(r.stdout, "1 written") {
		t.Fatalf("rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(main); string(b) != "package main\n" {
		t.Errorf("main.go not restored: %q", b)
	}
}

// In a trusted folder the .plyignore is honoured, and the log says that
// it leaves tracked files out of checkpoints.
func TestTrustedPlyIgnoreOfTrackedFilesIsLogged(t *testing.T) {
	dir, home := plyignoreRepo(t), t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("hello")})
	if r := runPlyHome(t, dir, home, srv, "--trust-workspace", "-p", "hi"); r.code != 0 {
		t.Fatalf("prompt: exit %d %s", r.code, r.stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(home, "logs", "*.log"))
	var all strings.Builder
	for _, p := range logs {
		b, _ := os.ReadFile(p)
		all.Write(b)
	}
	if !strings.Contains(all.String(), "1 files git tracks out of checkpoints") {
		t.Errorf("the log does not warn of the tracked file left out:\n%s", all.String())
	}
}
