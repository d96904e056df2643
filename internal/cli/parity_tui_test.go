package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// The TUI entry of the parity matrix: Main with a terminal on both ends
// runs the real interactive UI (runTUI), here on pipes. Keys go in as
// the bytes a terminal sends; what the UI draws is searched as text, and
// every wait is on a write to the screen, never on a timer.

// screen is the UI's output; changed is closed and replaced on each write,
// so a waiter wakes when there is something new to look at.
type screen struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

// snapshot returns what was drawn so far and a channel closed at the next
// write.
func (s *screen) snapshot() (string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String(), s.changed
}

// tuiRun is ply's interactive UI running in-process.
type tuiRun struct {
	t    *testing.T
	srv  *fp.Server
	in   *io.PipeWriter
	out  *screen
	code chan int
	// mark is where the next waitText starts looking.
	mark int
	// probes counts the idle probes sent.
	probes int
}

// startTUI runs the interactive UI in dir with ply's home given, against
// srv, with args added; NO_COLOR keeps styles out of the drawn text. The
// user settings file is written with settings plus the idle probe's hook
// (see afterWork); the terminal reports a 120×40 window, for the live area
// (dialogs, the footer) to be drawn at all.
func startTUI(t *testing.T, dir, home string, srv *fp.Server, settings map[string]any, args ...string) *tuiRun {
	t.Helper()
	writeTUISettings(t, home, settings)
	env := map[string]string{
		"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": srv.URL,
		"PLY_HOME": home, "PLY_RETRY_DELAY_SCALE": "0.001", "NO_COLOR": "1",
	}
	inR, inW := io.Pipe()
	r := &tuiRun{t: t, srv: srv, in: inW, out: newScreen(), code: make(chan int, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c := Main(ctx, args, IO{Stdin: inR, StdinIsTTY: true, StdoutIsTTY: true,
			Stdout: r.out, Stderr: r.out, Getenv: func(k string) string { return env[k] }, Cwd: dir})
		inR.Close()
		r.code <- c
	}()
	// A cell that failed half-way leaves the UI running: end it as
	// SIGINT would, so that no goroutine outlives the test.
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case <-r.code:
		case <-time.After(20 * time.Second):
			t.Error("the UI did not end when its context did")
		}
	})
	// Bubble Tea sends the size it found at start (none, off a terminal)
	// on a goroutine of its own, which may come after the report and undo
	// it: the report is sent again at each frame drawn until the input
	// box's hint shows the live area is drawn at the size.
	r.waitUntil("the UI to take the window size", func(drawn string) bool {
		if strings.Contains(drawn, "Type a message") {
			return true
		}
		r.keys(windowSize)
		return false
	})
	return r
}

// windowSize is the terminal's report of its size (XTWINOPS 8: 40 rows,
// 120 columns), as a terminal answers the UI's query.
const windowSize = "\x1b[8;40;120t"

// probeWord is what the idle probe's prompts say; the hook that blocks
// them answers probeReason.
const (
	probeWord   = "IDLE-PROBE"
	probeReason = "idle probe answered"
)

// writeTUISettings writes ply's user settings: settings, with a
// UserPromptSubmit hook added that blocks the idle probe's prompts and
// lets every other prompt through without a word.
func writeTUISettings(t *testing.T, home string, settings map[string]any) {
	t.Helper()
	probe := hookScript(t, t.TempDir(), "probe.sh", `if grep -q `+probeWord+`; then echo "`+probeReason+`" >&2; exit 2; fi; exit 0`)
	all := map[string]any{}
	for k, v := range settings {
		all[k] = v
	}
	hooks, _ := all["hooks"].(map[string]any)
	merged := map[string]any{}
	for k, v := range hooks {
		merged[k] = v
	}
	submit, _ := merged["UserPromptSubmit"].([]any)
	merged["UserPromptSubmit"] = append(slices.Clone(submit),
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": probe}}})
	all["hooks"] = merged
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(mustJSON(all)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// afterWork waits until everything typed so far has been worked through:
// a prompt typed while the UI works waits for the work to end, and this
// one, which its hook blocks, is refused as soon as it is sent, its reason
// shown; nothing reaches the model. The probe's own interaction may still
// be ending when the reason shows (see quit).
func (r *tuiRun) afterWork() {
	r.t.Helper()
	r.probes++
	r.submit(fmt.Sprintf("%s %d", probeWord, r.probes))
	r.waitText(probeReason)
}

// keys sends what a terminal sends for the keys typed.
func (r *tuiRun) keys(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, s); err != nil {
		r.t.Fatalf("typing %q: %v", s, err)
	}
}

// Keys as a terminal sends them.
const (
	keyEnter    = "\r"
	keyShiftTab = "\x1b[Z"
	keyCtrlC    = "\x03"
)

// keyEsc is a lone ESC byte, which the terminal reader tells from the
// start of a sequence as a terminal's would: nothing follows it.
const keyEsc = "\x1b"

// submit types text into the input box and presses Enter.
func (r *tuiRun) submit(text string) {
	r.t.Helper()
	r.keys(text)
	r.keys(keyEnter)
}

// waitUntil waits until ok holds, checking it again at each write to the
// screen; what was drawn so far is handed to ok.
func (r *tuiRun) waitUntil(what string, ok func(drawn string) bool) string {
	r.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		s, changed := r.out.snapshot()
		if ok(s) {
			return s
		}
		select {
		case <-changed:
		case <-timeout:
			r.t.Fatalf("timed out waiting for %s; the screen so far:\n%q", what, tail(s, 3000))
		}
	}
}

// waitText waits until want is drawn after the mark, and moves the mark
// past it.
func (r *tuiRun) waitText(want string) {
	r.t.Helper()
	r.waitUntil(want, func(s string) bool {
		i := strings.Index(s[r.mark:], want)
		if i < 0 {
			return false
		}
		r.mark += i + len(want)
		return true
	})
}

// quit waits for the work typed so far to end, then presses Ctrl+C until
// the UI ends, as a person leaving would, and returns the exit code. One
// press arms (the footer asks for another), the next leaves; a press that
// lands while the probe's interaction is still ending stops it instead.
// Each is pressed at a new frame, since each changes what is drawn.
func (r *tuiRun) quit() int {
	r.t.Helper()
	r.afterWork()
	timeout := time.After(30 * time.Second)
	for {
		_, changed := r.out.snapshot()
		_, _ = io.WriteString(r.in, keyCtrlC) // fails once the UI has ended
		select {
		case c := <-r.code:
			r.code <- c // for the cleanup
			return c
		case <-changed:
		case <-timeout:
			s, _ := r.out.snapshot()
			r.t.Fatalf("the UI did not quit on Ctrl+C; the screen so far:\n%q", tail(s, 3000))
			return -1
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
