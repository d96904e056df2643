package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// ftWorkspace returns a fresh workspace and its (symlink-resolved) root.
func ftWorkspace(t testing.TB) (string, *Workspace) {
	t.Helper()
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws.Root(), ws
}

func ftWriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ftReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ftExec runs tool with args marshalled to JSON (a string is sent as is).
func ftExec(t testing.TB, tool Tool, args any) Result {
	t.Helper()
	var raw []byte
	if s, ok := args.(string); ok {
		raw = []byte(s)
	} else {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tool.Execute(context.Background(), raw, nil)
	if err != nil {
		t.Fatalf("%s: unexpected Go error: %v", tool.Name(), err)
	}
	return res
}

func ftWantOK(t testing.TB, res Result) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error %s: %s", res.ErrorType, res.Output)
	}
}

func ftWantError(t testing.TB, res Result, errType string, msgParts ...string) {
	t.Helper()
	if !res.IsError || res.ErrorType != errType {
		t.Fatalf("got IsError=%v ErrorType=%q (output %q), want error %q", res.IsError, res.ErrorType, res.Output, errType)
	}
	for _, p := range msgParts {
		if !strings.Contains(res.Output, p) {
			t.Errorf("error message %q does not mention %q", res.Output, p)
		}
	}
}

// ftWantNoTempFiles fails if writeFileAtomic left a temporary file
// anywhere under dir.
func ftWantNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".ply-tmp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func mustSymlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// failRename makes the final rename of writeFileAtomic and of
// Workspace.writeFile fail for the rest of the test. Tests using it must
// not run in parallel.
func failRename(t *testing.T) {
	t.Helper()
	orig := renameFile
	renameFile = func(string, string) error { return errors.New("simulated rename failure") }
	t.Cleanup(func() { renameFile = orig })
	failRenameAt(t)
}

// searchTestWorkspace returns a workspace over a fresh directory holding
// files.
func searchTestWorkspace(t testing.TB, files map[string]string) (string, *Workspace) {
	t.Helper()
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	searchTestTree(t, ws.Root(), files)
	return ws.Root(), ws
}

// searchTestRun executes tool with args (marshalled unless already raw).
func searchTestRun(t testing.TB, tool Tool, args any) Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := tool.Execute(context.Background(), json.RawMessage(raw), nil)
	if err != nil {
		t.Fatalf("Execute(%s): unexpected Go error %v", raw, err)
	}
	return res
}

func shellTestTool(t *testing.T) (*Shell, *Workspace) {
	t.Helper()
	_, ws := searchTestWorkspace(t, map[string]string{"sub/file.txt": "hi\n"})
	sh := NewShell(ws)
	t.Cleanup(func() { sh.Close() })
	return sh, ws
}

// searchTestTree creates files (slash paths relative to root, with their
// contents) under root.
func searchTestTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shellTestBuffer is an Output safe to read while the command writes.
type shellTestBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *shellTestBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *shellTestBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// shellTestPID waits for the first line of out to be a PID and returns it.
func shellTestPID(t *testing.T, out *shellTestBuffer) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatalf("first line %q is not a pid", line)
			}
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no pid printed")
	return 0
}

// shellTestGone reports whether pid no longer runs.
func shellTestGone(pid int) bool { return sandboxtest.Gone(pid) }

func shellTestWaitGone(t *testing.T, pid int) {
	t.Helper()
	if !sandboxtest.WaitGone(pid, 3*time.Second) {
		sandboxtest.Kill(pid)
		t.Fatalf("process %d still runs", pid)
	}
}
