package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// The model starts `sleep 1; echo done` in the background and reads it,
// waiting, until it exits: the read brings the output, the exit code and
// the file in the session's directory that keeps the output. Reading and
// stopping need no approval: only the shell command is allowed here.
func TestBackgroundJobReadUntilExit(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s", "run_shell_command", `{"command":"sleep 1; echo done","is_background":true}`)},
		fp.Turn{fp.ToolCall("o", "task_output", `{"task_id":"bg-1","block":true,"timeout":20000}`)},
		fp.Turn{fp.ToolCall("again", "task_output", `{"task_id":"bg-1"}`)},
		fp.Turn{fp.Text("it printed done")},
	)
	start := time.Now()
	r := runPly(t, dir, srv, "", "--allowed-tools", "run_shell_command", "-p", "run it in the background")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	started := toolTextIn(t, srv, 1, "s")
	m := regexp.MustCompile(`Output file: (\S+)`).FindStringSubmatch(started)
	if m == nil || !strings.Contains(started, "bg-1") || !strings.Contains(started, "task_output") {
		t.Fatalf("the start names no job, file or reading tool:\n%s", started)
	}
	got := toolTextIn(t, srv, 2, "o")
	if !strings.Contains(got, "New output:\ndone") || !strings.Contains(got, "Status: exit code 0") {
		t.Fatalf("the waiting read did not bring the end:\n%s", got)
	}
	if time.Since(start) < time.Second {
		t.Errorf("the read returned before the job could have ended (%v)", time.Since(start))
	}
	if again := toolTextIn(t, srv, 3, "again"); strings.Contains(again, "output:\ndone") || !strings.Contains(again, "no new output") {
		t.Errorf("a second read repeated the output, or did not say there was none:\n%s", again)
	}
	if !strings.Contains(m[1], "shell-output") {
		t.Errorf("the output file is outside the session's directory: %s", m[1])
	}
	if data, err := os.ReadFile(m[1]); err != nil || string(data) != "done\n" {
		t.Errorf("output file: %q, %v", data, err)
	}
}

// task_stop ends the job's whole process group: the child it started is
// gone too. A job left running ends with the session.
func TestBackgroundJobStoppedWithItsChildren(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{
			fp.ToolCall("s1", "run_shell_command", `{"command":"sleep 60 & echo $!; wait","is_background":true}`),
			fp.ToolCall("s2", "run_shell_command", `{"command":"sleep 60 & echo $!; wait","is_background":true}`),
		},
		fp.Turn{
			fp.ToolCall("o1", "task_output", `{"task_id":"bg-1","wait_for_output":true,"timeout":20000}`),
			fp.ToolCall("o2", "task_output", `{"task_id":"bg-2","wait_for_output":true,"timeout":20000}`),
		},
		fp.Turn{fp.ToolCall("k", "task_stop", `{"task_id":"bg-1"}`)},
		fp.Turn{fp.ToolCall("k2", "task_stop", `{"task_id":"bg-1"}`), fp.ToolCall("k3", "task_stop", `{"task_id":"bg-9"}`)},
		fp.Turn{fp.Text("stopped")},
	)
	r := runPly(t, dir, srv, "", "--allowed-tools", "run_shell_command", "-p", "start and stop")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	child := func(id string) int {
		out := toolTextIn(t, srv, 2, id)
		m := regexp.MustCompile(`(?m)^(\d+)$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no child PID in %s:\n%s", id, out)
		}
		pid, _ := strconv.Atoi(m[1])
		return pid
	}
	stopped, left := child("o1"), child("o2")
	if !strings.Contains(r.stderr, "stopped background job bg-2") || strings.Contains(r.stderr, "stopped background job bg-1") {
		t.Errorf("the end of the run did not say which running job it stopped:\n%s", r.stderr)
	}
	if got := toolTextIn(t, srv, 3, "k"); !strings.Contains(got, "Stopped") || !strings.Contains(got, "bg-1") {
		t.Errorf("task_stop said:\n%s", got)
	}
	if got := toolTextIn(t, srv, 4, "k2"); !strings.Contains(got, "not running") {
		t.Errorf("stopping a stopped job said:\n%s", got)
	}
	if got := toolTextIn(t, srv, 4, "k3"); !strings.Contains(got, "No background task") || !strings.Contains(got, "bg-2") {
		t.Errorf("stopping an unknown job said:\n%s", got)
	}
	for _, pid := range []int{stopped, left} {
		if !sandboxtest.WaitGone(pid, 5*time.Second) {
			sandboxtest.Kill(pid)
			t.Fatalf("child %d of a background job is still running", pid)
		}
	}
}

// Ctrl+C or SIGTERM (the cancelled context) ends a run that waits on a
// background job, and the job ends with it, children and all.
func TestBackgroundJobEndsWhenTheRunIsCancelled(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s", "run_shell_command", `{"command":"sleep 60 & echo $! > child.pid; wait","is_background":true}`)},
		fp.Turn{fp.ToolCall("o", "task_output", `{"task_id":"bg-1","block":true,"timeout":600000}`)},
		fp.Turn{fp.Text("never")},
	)
	env := map[string]string{
		"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": srv.URL,
		"PLY_HOME": filepath.Join(t.TempDir(), "home"),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"-y", "-p", "wait for it"}, IO{
			Stdin: strings.NewReader(""), StdinIsTTY: true, Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return env[k] }, Cwd: dir,
		})
	}()
	child := sandboxtest.WaitPID(filepath.Join(dir, "child.pid"), 20*time.Second)
	if child == 0 {
		cancel()
		<-done
		t.Fatalf("the job did not start; stderr:\n%s", errb.String())
	}
	// Cancel once the model has asked for task_output, so the run is
	// waiting on the job rather than on the model.
	for deadline := time.Now().Add(10 * time.Second); srv.Pending() > 1 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end when cancelled")
	}
	// The run sent the job's processes SIGKILL as it ended; they are gone
	// once the kernel has torn them down.
	if !sandboxtest.WaitGone(child, 5*time.Second) {
		sandboxtest.Kill(child)
		t.Fatalf("child %d of the background job outlived the run", child)
	}
}

// A background job dies with ply even when ply is killed with SIGKILL
// and cannot stop it itself: the guardian ends its process group.
func TestBackgroundJobDiesWithPly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ply as a process and kills it")
	}
	dir := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("s", "run_shell_command", `{"command":"(sleep 3; touch marker) & echo $$ > pid; wait","is_background":true}`)},
		fp.Turn{fp.ToolCall("o", "task_output", `{"task_id":"bg-1","block":true,"timeout":600000}`)},
		fp.Turn{fp.Text("never")},
	)
	ply := startPlayPly(t, dir, filepath.Join(t.TempDir(), "home"), srv.URL, "-y", "-p", "go")
	// Kill ply once it has asked for task_output and waits on the job, not
	// while it sends that request.
	killPlyAndCheckGroup(t, dir, ply, "the background job", func() bool { return srv.Pending() <= 1 })
}
