package tui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/plytest"
	"github.com/plyhq/ply/internal/sandbox/sandboxtest"
)

// waitLimit bounds a wait on the screen. It only bounds a failure: the
// terminal tests run two at a time on a machine that may be busy.
const waitLimit = 30 * time.Second

// tmux drives the real binary in a real pseudo-terminal on a private
// tmux server, so the test touches no tmux session of the user's.
type tmux struct {
	t      *testing.T
	socket string
}

func (x *tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// submit types text into the input box and presses Enter.
func (x *tmux) submit(text string) {
	x.t.Helper()
	x.run("send-keys", "-t", "ply", "-l", text)
	x.run("send-keys", "-t", "ply", "Enter")
}

func (x *tmux) screen() string { return x.run("capture-pane", "-p", "-t", "ply", "-S", "-100") }

// waitFor polls the screen until it contains want.
func (x *tmux) waitFor(want string) string {
	x.t.Helper()
	return x.waitScreen(fmt.Sprintf("%q", want), func(s string) bool { return strings.Contains(s, want) })
}

// waitGone polls the visible screen until it no longer contains gone.
func (x *tmux) waitGone(gone string) string {
	x.t.Helper()
	return x.waitScreen(fmt.Sprintf("%q to go", gone), func(string) bool {
		return !strings.Contains(x.run("capture-pane", "-p", "-t", "ply"), gone)
	})
}

// waitIdle waits until the agent is idle: the live area's "working…"
// line is gone. A reply is on screen before its turn ends, and the
// commands that change the conversation refuse to run until it has.
func (x *tmux) waitIdle() {
	x.t.Helper()
	x.waitGone("working…")
}

// waitScreen polls the screen until ok accepts it.
func (x *tmux) waitScreen(what string, ok func(screen string) bool) string {
	x.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		s := x.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ply is the binary the terminal tests drive, built once (TestMain
// removes it).
var ply plytest.Binary

// buildPly skips a test that needs a terminal where it cannot have one,
// and returns the binary it drives, built once for all the tests.
func buildPly(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and drives a terminal")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the pseudo-terminal test needs it")
	}
	return ply.Path(t)
}

// sockets numbers the tmux servers of a run.
var sockets atomic.Int64

// startPly runs bin in dir on a private tmux server of its own, in a
// w×h terminal, against srv, with a fresh PLY_HOME and env added; the
// server is killed when the test ends.
func startPly(t *testing.T, bin, dir string, srv *fp.Server, w, h int, env []string, flags ...string) *tmux {
	t.Helper()
	// The number keeps the name fresh when -count runs a test again: the
	// last run's server may still be on its way out.
	x := &tmux{t: t, socket: fmt.Sprintf("ply-test-%d-%d-%s", os.Getpid(), sockets.Add(1), strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))}
	env = append([]string{
		"OPENAI_API_KEY=test-key", "OPENAI_MODEL=test-model", "OPENAI_BASE_URL=" + srv.URL,
		"PLY_HOME=" + filepath.Join(t.TempDir(), "home"), "PLY_RETRY_DELAY_SCALE=0.001", "TERM=xterm-256color",
	}, env...)
	cmd := "cd " + dir + " && exec env " + strings.Join(env, " ") + " " + strings.Join(append([]string{bin}, flags...), " ")
	x.run("new-session", "-d", "-s", "ply", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd)
	// The pane's process is ply itself (the shell and env exec it). It may
	// still be writing into its directories after its server is killed:
	// they are removed only once it is gone.
	pid, _ := strconv.Atoi(strings.TrimSpace(x.run("display-message", "-p", "-t", "ply", "#{pane_pid}")))
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", x.socket, "kill-server").Run()
		if pid > 0 && !sandboxtest.WaitGone(pid, waitLimit) {
			sandboxtest.Kill(pid)
			t.Errorf("ply (pid %d) still runs after its tmux server was killed", pid)
		}
	})
	return x
}

// args encodes a tool call's arguments.
func args(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
