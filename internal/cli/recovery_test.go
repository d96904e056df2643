package cli

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/settings"
)

// runPlyEnv is runPly with extra environment variables.
func runPlyWithExtraEnv(t *testing.T, dir string, srv *fp.Server, extra map[string]string, args ...string) result {
	t.Helper()
	env := map[string]string{
		"OPENAI_API_KEY":        "test-key",
		"OPENAI_MODEL":          "test-model",
		"OPENAI_BASE_URL":       srv.URL,
		"PLY_HOME":              filepath.Join(t.TempDir(), "home"),
		"PLY_RETRY_DELAY_SCALE": "0.001",
	}
	maps.Copy(env, extra)
	var out, errb bytes.Buffer
	sio := IO{
		Stdin: strings.NewReader(""), StdinIsTTY: true,
		Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Cwd:    dir,
	}
	code := Main(context.Background(), args, sio)
	return result{out.String(), errb.String(), code}
}

func TestCloseBeforeFirstByteIsRetried(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.CloseBeforeFirstByte()}, fp.Turn{fp.Text("fine.")})
	r := runPly(t, t.TempDir(), srv, "", "-y", "-p", "go")
	if r.code != 0 || r.stdout != "fine.\n" {
		t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestStalledStreamIsRetriedWithinTheIdleTimeout(t *testing.T) {
	cases := []struct {
		name   string
		turns  []fp.Turn
		stdout string
		// retried: the stall came before any text, so the request is
		// replayed (announced on stderr) rather than continued.
		retried bool
	}{
		{"headers then nothing",
			[]fp.Turn{{fp.Stall(time.Minute), fp.Text("never")}, {fp.Text("fine.")}}, "fine.\n", true},
		{"nothing at all, not even headers",
			[]fp.Turn{{fp.StallBeforeHeaders(time.Minute), fp.Text("never")}, {fp.Text("fine.")}}, "fine.\n", true},
		{"a stall after visible text is continued",
			[]fp.Turn{
				{fp.Text("The answer is that the quick brown fox"), fp.Stall(time.Minute), fp.Text("never")},
				{fp.Text("quick brown fox jumps over the dog.")}},
			"The answer is that the quick brown fox jumps over the dog.\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fp.New(t, tc.turns...)
			start := time.Now()
			r := runPlyWithExtraEnv(t, t.TempDir(), srv, map[string]string{"PLY_STREAM_IDLE_TIMEOUT": "1s"}, "-y", "-p", "go")
			took := time.Since(start)
			if r.code != 0 || r.stdout != tc.stdout {
				t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if took > 5*time.Second {
				t.Errorf("took %v, want under 5s", took)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
			want := "the reply was cut (openai: no data received for 1s); continuing it (continuation 1)"
			if tc.retried {
				want = "attempt 1 failed: openai: no data received for 1s"
			}
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr should say why and which attempt, %q:\n%s", want, r.stderr)
			}
		})
	}
}

func TestBadStreamIdleTimeoutIsAConfigError(t *testing.T) {
	srv := fp.New(t)
	r := runPlyWithExtraEnv(t, t.TempDir(), srv, map[string]string{"PLY_STREAM_IDLE_TIMEOUT": "soon"}, "-y", "-p", "go")
	if r.code != 52 || !strings.Contains(r.stderr, "PLY_STREAM_IDLE_TIMEOUT") {
		t.Fatalf("exit %d, want 52 naming the variable; stderr:\n%s", r.code, r.stderr)
	}
}

func TestResolveNetLimits(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "PLY_STREAM_IDLE_TIMEOUT" {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		env     string
		model   settings.Model
		want    netLimits
		wantErr string
	}{
		{"", settings.Model{}, netLimits{}, ""},
		{"2s", settings.Model{StreamIdleTimeout: "1m"}, netLimits{idle: 2 * time.Second}, ""},
		{"", settings.Model{StreamIdleTimeout: "1m", MaxResponseBytes: 1 << 20}, netLimits{idle: time.Minute, maxBytes: 1 << 20}, ""},
		{"", settings.Model{StreamIdleTimeout: "forever"}, netLimits{}, "model.streamIdleTimeout"},
		{"-1s", settings.Model{}, netLimits{}, "PLY_STREAM_IDLE_TIMEOUT"},
		{"", settings.Model{MaxResponseBytes: -5}, netLimits{}, "model.maxResponseBytes"},
	}
	for _, tc := range cases {
		got, err := resolveNetLimits(tc.model, env(tc.env))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q %+v: err %v, want one naming %s", tc.env, tc.model, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q %+v: %+v %v, want %+v", tc.env, tc.model, got, err, tc.want)
		}
	}
}

const tooLong = `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}`

// bigFile writes a file of about 150 KB of numbered lines.
func bigFile(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	for i := 0; b.Len() < 150<<10; i++ {
		fmt.Fprintf(&b, "line %06d: the quick brown fox jumps over the lazy dog\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFullContextIsRecoveredBySmallerResend(t *testing.T) {
	dir := t.TempDir()
	bigFile(t, dir)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("r1", "read_file", `{"file_path":"big.txt"}`)},
		fp.Turn{fp.Status(400, fmt.Sprintf(tooLong, 12000), nil)},
		fp.Turn{fp.Text("SUMMARY: the user asked to read big.txt")},
		fp.Turn{fp.Text("done.")},
	)
	// One tool: the window is small, and what this tests is the cut history,
	// not how many tools other changes add to every request.
	r := runPly(t, dir, srv, "", "-y", "--core-tools", "read_file", "-p", "read big.txt")
	if r.code != 0 || r.stdout != "done.\n" {
		t.Fatalf("exit %d stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (call, refused, summary, resend)", len(reqs))
	}
	if !strings.Contains(string(reqs[2].Raw), "Summarise the conversation") {
		t.Errorf("request 2 should be the one summary request")
	}
	failed, resent := len(reqs[1].Raw), len(reqs[3].Raw)
	t.Logf("refused request %d B, resent %d B", failed, resent)
	if resent > failed*6/10 {
		t.Errorf("resent %d B, more than 60%% of the refused %d B", resent, failed)
	}
	last := reqs[3].Messages[len(reqs[3].Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Text(), "line 000000") || !strings.Contains(last.Text(), "were cut to fit the context window") {
		t.Errorf("the cut result should keep its head and say it was cut: %.300q", last.Text())
	}
	// The full text is saved with the session, where read_file may read
	// it: the lines the note names hold it alone.
	m := regexp.MustCompile(`saved at (/\S*tool-results\.txt), lines (\d+)-(\d+) \(read_file offset (\d+), limit (\d+);`).FindStringSubmatch(last.Text())
	if m == nil {
		t.Fatalf("the cut result names no saved lines: %.600q", last.Text())
	}
	first, end := atoiT(t, m[2]), atoiT(t, m[3])
	if atoiT(t, m[4]) != first-1 || atoiT(t, m[5]) != end-first+1 {
		t.Errorf("the read_file offset and limit do not name lines %d-%d: %s", first, end, m[0])
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if end > len(lines) {
		t.Fatalf("lines %d-%d of a file of %d lines", first, end, len(lines))
	}
	saved := strings.Join(lines[first-1:end], "")
	if !strings.Contains(saved, "line 000000") || len(saved) < 20000 || !strings.HasPrefix(lines[first-2], "=== tool-result-r1 ===") {
		t.Errorf("the saved full text: %d bytes from %.40q, after %q", len(saved), saved, lines[first-2])
	}
	if err := srv.CheckPairing(); err != nil {
		t.Error(err)
	}
}

func TestPromptTooLargeAloneFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	prompt := strings.Repeat("please consider this sentence carefully. ", 3000) // ~120 KB
	srv := fp.New(t, fp.Turn{fp.Status(400, fmt.Sprintf(tooLong, 30000), nil)})
	r := runPly(t, dir, srv, "", "-y", "-p", prompt)
	if r.code == 0 {
		t.Fatal("a prompt that cannot fit must not end as success")
	}
	if n := len(srv.Requests()); n > 2 {
		t.Errorf("%d requests, want at most one retry", n)
	}
	if !strings.Contains(r.stderr, "newest message alone is about") || !strings.Contains(r.stderr, "8192 tokens") {
		t.Errorf("the error should say the message alone does not fit, with sizes:\n%s", r.stderr)
	}
}

func TestContinueAfterFailedRecoveryDoesNotResendTheOversizedHistory(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	bigFile(t, dir)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("r1", "read_file", `{"file_path":"big.txt"}`)},
		fp.Turn{fp.Status(400, fmt.Sprintf(tooLong, 12000), nil)},
		fp.Turn{fp.Text("SUMMARY: the user asked to read big.txt")},
		fp.Turn{fp.Status(400, fmt.Sprintf(tooLong, 9000), nil)},
	)
	if r := runIn(t, dir, home, srv, "-y", "-p", "read big.txt"); r.code == 0 {
		t.Fatalf("the second refusal should end the run: %s", r.stdout)
	}
	failed := len(srv.Requests()[1].Raw)
	srv2 := fp.New(t, fp.Turn{fp.Text("resumed.")})
	r := runIn(t, dir, home, srv2, "-y", "--continue", "-p", "go on")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	resent := len(srv2.Requests()[0].Raw)
	t.Logf("refused %d B, resumed with %d B", failed, resent)
	if resent > failed*6/10 {
		t.Errorf("--continue sent %d B, more than 60%% of the refused %d B: the cut was not recorded", resent, failed)
	}
}

func TestResponseLargerThanTheCapFailsClearly(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"model":{"maxResponseBytes":100000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t, bigAnswer(1))
	r := runPlyWithExtraEnv(t, dir, srv, map[string]string{"PLY_HOME": home}, "-y", "-p", "go")
	if r.code == 0 || !strings.Contains(r.stderr, "larger than the cap of 100000 bytes") || !strings.Contains(r.stderr, "model.maxResponseBytes") {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: a response past the cap is not retried", n)
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
