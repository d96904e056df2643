//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/shell"
)

func TestShellExitCodeAndStderr(t *testing.T) {
	sh, ws := shellTestTool(t)
	var live shellTestBuffer
	res, err := sh.Execute(context.Background(), json.RawMessage(`{"command": "echo out; echo err >&2; exit 3", "description": "test"}`), &live)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Command: echo out; echo err >&2; exit 3\nDirectory: %s\nOutput: out\nerr\nExit code: 3", ws.Root())
	if res.IsError || res.Output != want {
		t.Errorf("got %+v\nwant:\n%s", res, want)
	}
	if live.String() != "out\nerr\n" {
		t.Errorf("live output %q", live.String())
	}

	res = searchTestRun(t, sh, map[string]any{"command": "pwd; cat; test -t 0 || echo no-tty", "directory": "sub"})
	if !strings.Contains(res.Output, "Output: "+filepath.Join(ws.Root(), "sub")+"\nno-tty\nExit code: 0") {
		t.Errorf("directory and closed stdin: %s", res.Output)
	}
	res = searchTestRun(t, sh, map[string]any{"command": "true"})
	if !strings.Contains(res.Output, "Output: (empty)\nExit code: 0") {
		t.Errorf("empty output: %s", res.Output)
	}
	res = searchTestRun(t, sh, map[string]any{"command": "kill -KILL $$"})
	if res.IsError || !strings.Contains(res.Output, "Exit code: (none)\nSignal: SIGKILL") {
		t.Errorf("killed by a signal: %+v", res)
	}
}

func TestShellTimeoutKillsTheGroup(t *testing.T) {
	sh, _ := shellTestTool(t)
	var live shellTestBuffer
	start := time.Now()
	res, err := sh.Execute(context.Background(), json.RawMessage(`{"command": "sleep 60 & echo $!; wait", "timeout": 300}`), &live)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	if !res.IsError || res.ErrorType != "SHELL_TIMEOUT" || !strings.Contains(res.Output, "Error: the command timed out after 300 ms") || !strings.Contains(res.Output, "Signal: SIGTERM") {
		t.Errorf("result %+v", res)
	}
	shellTestWaitGone(t, shellTestPID(t, &live))
}

func TestShellTimeoutEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	sh, _ := shellTestTool(t)
	var live shellTestBuffer
	start := time.Now()
	// Ignored signals stay ignored across exec: neither bash nor sleep
	// dies of SIGTERM.
	res, err := sh.Execute(context.Background(), json.RawMessage(`{"command": "trap '' TERM; sleep 60 & echo $!; wait", "timeout": 200}`), &live)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < shellKillGrace || d > shellKillGrace+3*time.Second {
		t.Errorf("took %v, want the grace period of %v and little more", d, shellKillGrace)
	}
	if !strings.Contains(res.Output, "Signal: SIGKILL") {
		t.Errorf("result %s", res.Output)
	}
	shellTestWaitGone(t, shellTestPID(t, &live))
}

func TestShellCancelKillsTheGroup(t *testing.T) {
	sh, _ := shellTestTool(t)
	var live shellTestBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sh.Execute(ctx, json.RawMessage(`{"command": "sleep 60 & echo $!; wait"}`), &live)
		done <- err
	}()
	pid := shellTestPID(t, &live)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("cancellation did not end the command")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancellation took %v", d)
	}
	shellTestWaitGone(t, pid)
}

func TestShellLeftoverProcessDoesNotHang(t *testing.T) {
	sh, _ := shellTestTool(t)
	var live shellTestBuffer
	start := time.Now()
	res, err := sh.Execute(context.Background(), json.RawMessage(`{"command": "sleep 30 & echo $!; echo done"}`), &live)
	if err != nil {
		t.Fatal(err)
	}
	pid := shellTestPID(t, &live)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if d := time.Since(start); d > 2*time.Second || !strings.Contains(res.Output, "done\nExit code: 0") {
		t.Errorf("after %v: %s", d, res.Output)
	}
}

func TestShellCaptureCountsCharacters(t *testing.T) {
	c := newShellCapture(13)
	for _, piece := range []string{"ab", "cdé", "ñ€", "xyz", "0123", "456", "789"} {
		c.Write([]byte(piece))
	}
	// The head (two fifths) holds "abcd" and the first byte of é, which
	// is dropped; the ring holds the last 8 bytes, "23456789".
	got := c.String()
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "abcd\n[... ") || !strings.HasSuffix(got, "...]\n23456789") {
		t.Errorf("capture %q", got)
	}
	// Omitted: é, ñ, €, x, y, z, 0, 1.
	if !strings.Contains(got, "[... 8 characters omitted. To see them, redirect") {
		t.Errorf("capture %q", got)
	}
	small := newShellCapture(10)
	small.Write([]byte("short"))
	if small.String() != "short" {
		t.Errorf("uncut capture %q", small.String())
	}
}

func TestShellRefusals(t *testing.T) {
	sh, ws := shellTestTool(t)
	for _, tc := range []struct {
		args    any
		errType string
	}{
		{map[string]any{"command": "ls", "directory": "/"}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"command": "ls", "directory": "../.."}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"command": "ls", "directory": filepath.Dir(ws.Root())}, "PATH_OUTSIDE_WORKSPACE"},
		{map[string]any{"command": "ls", "directory": "missing"}, "FILE_NOT_FOUND"},
		{map[string]any{"command": "ls", "directory": "sub/file.txt"}, "PATH_IS_NOT_A_DIRECTORY"},
		{map[string]any{"command": " "}, "INVALID_TOOL_PARAMS"},
		{map[string]any{"command": "ls", "timeout": -5}, "INVALID_TOOL_PARAMS"},
		{`{"command": 1}`, "INVALID_TOOL_PARAMS"},
		{`{`, "INVALID_TOOL_PARAMS"},
	} {
		res := searchTestRun(t, sh, tc.args)
		if !res.IsError || res.ErrorType != tc.errType {
			t.Errorf("%v: got %+v, want %s", tc.args, res, tc.errType)
		}
	}
	res := searchTestRun(t, sh, map[string]any{"command": "echo ok", "timeout": 900000})
	if res.IsError || !strings.Contains(res.Output, "clamped to 600000 ms") {
		t.Errorf("clamp: %+v", res)
	}
	broken := &Shell{ws: ws, shell: filepath.Join(ws.Root(), "no-such-shell")}
	if res := searchTestRun(t, broken, map[string]any{"command": "true"}); !res.IsError || res.ErrorType != "SHELL_EXECUTE_ERROR" {
		t.Errorf("unstartable shell: %+v", res)
	}
}

func TestShellConcurrencySafeAsksTheClassifier(t *testing.T) {
	sh, _ := shellTestTool(t)
	for _, cmd := range []string{"ls -la", "rm -rf x", "git status", "echo hi > f"} {
		args, _ := json.Marshal(map[string]any{"command": cmd})
		if got, want := sh.ConcurrencySafe(args), shell.IsReadOnly(cmd); got != want {
			t.Errorf("%q: %v, classifier says %v", cmd, got, want)
		}
	}
	if sh.ConcurrencySafe(json.RawMessage(`{"command": `)) {
		t.Error("malformed arguments must not be concurrency-safe")
	}
	if sh.ConcurrencySafe(json.RawMessage(`{"command": "rm -rf /"}`)) {
		t.Error("rm must never be concurrency-safe")
	}
}

func TestShellBackgroundJobs(t *testing.T) {
	sh, _ := shellTestTool(t)
	start := time.Now()
	res := searchTestRun(t, sh, map[string]any{"command": "echo started; sleep 60", "is_background": true})
	if res.IsError || time.Since(start) > 2*time.Second {
		t.Fatalf("%+v after %v", res, time.Since(start))
	}
	m := regexp.MustCompile(`job (bg-\d+), PID (\d+)`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("no job id in %q", res.Output)
	}
	pid, _ := strconv.Atoi(m[2])
	if shellTestGone(pid) {
		t.Fatal("background job is not running")
	}
	short := searchTestRun(t, sh, map[string]any{"command": "exit 4", "is_background": true})
	if short.IsError {
		t.Fatal(short.Output)
	}

	deadline := time.Now().Add(3 * time.Second)
	for {
		jobs := sh.Jobs()
		if len(jobs) == 2 && jobs[0].ID == m[1] && jobs[0].Running && strings.Contains(jobs[0].Output, "started") &&
			!jobs[1].Running && jobs[1].ExitCode == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs %+v", jobs)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := sh.KillJob("bg-99"); err == nil {
		t.Error("killing an unknown job must fail")
	}

	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	shellTestWaitGone(t, pid)
	if jobs := sh.Jobs(); jobs[0].Running || jobs[0].Signal == "" {
		t.Errorf("after Close: %+v", jobs[0])
	}
	if res := searchTestRun(t, sh, map[string]any{"command": "sleep 1", "is_background": true}); !res.IsError {
		t.Errorf("background start after Close: %+v", res)
	}
}

func TestShellKillJobReachesEscapedChildren(t *testing.T) {
	sh, _ := shellTestTool(t)
	// The leader exits at once; its child keeps the job's output pipe.
	res := searchTestRun(t, sh, map[string]any{"command": "sleep 60 & echo $!", "is_background": true})
	id := regexp.MustCompile(`job (bg-\d+)`).FindStringSubmatch(res.Output)[1]
	var pid int
	deadline := time.Now().Add(3 * time.Second)
	for pid == 0 {
		if jobs := sh.Jobs(); len(jobs) == 1 && !jobs[0].Running && strings.TrimSpace(jobs[0].Output) != "" {
			pid, _ = strconv.Atoi(strings.TrimSpace(jobs[0].Output))
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs %+v", sh.Jobs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if shellTestGone(pid) {
		t.Fatal("the child should outlive the leader")
	}
	if err := sh.KillJob(id); err != nil {
		t.Fatal(err)
	}
	shellTestWaitGone(t, pid)
}
