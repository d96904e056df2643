package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/tools"
)

// A long session near its context limit: every round reads a page of a
// large file in a 16k-token window, so that from the first dozen rounds on
// each request cuts an older result, and now and then the older history
// is summarised.

const (
	longWindow     = 16000
	longSystemMark = "You are ply, a coding agent"
	longSummary    = "Summarise the conversation so far"
)

// longRun is what longSession leaves behind.
type longRun struct {
	dir, home string
	srv       *fp.Server
	// gaps[k] is the time from the end of the response to main request k
	// to the start of the next request: ply's own work between two
	// round-trips, the tool's included.
	gaps []time.Duration
}

func longSettings(tb testing.TB, home, url string, window int) {
	tb.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		tb.Fatal(err)
	}
	s := fmt.Sprintf(`{"model": {"maxToolCallsPerTurn": 100000}, "provider": "small", "modelProviders": {"small": {"authType": "openai", "baseUrl": %q,
		"apiKeyEnv": "OPENAI_API_KEY", "model": "small-model", "contextWindow": %d}}}`, url, window)
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(s), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// longTurns scripts rounds pages of the file, a final answer and enough
// summaries for them.
func longTurns(first, rounds int) []fp.Turn {
	var turns []fp.Turn
	for i := first; i < first+rounds; i++ {
		turns = append(turns, fp.Turn{fp.When(longSystemMark), fp.Text(fmt.Sprintf("Reading page %d.", i)),
			fp.ToolCall(fmt.Sprintf("p%d", i), "read_file", fmt.Sprintf(`{"file_path":"big.txt","offset":%d,"limit":40}`, (i%30)*40))})
	}
	turns = append(turns, fp.Turn{fp.When(longSystemMark), fp.Text("done.")})
	for i := range rounds/4 + 4 {
		turns = append(turns, fp.Turn{fp.When(longSummary), fp.Text(fmt.Sprintf("SUMMARY %d: reading big.txt page by page.", i))})
	}
	return turns
}

// span is when a request arrived and when its response ended.
type span struct{ start, end time.Time }

// seqHeader numbers the requests as they arrive, so that each recorded
// request finds its span even when two overlap.
const seqHeader = "X-Bench-Seq"

// timedServer is a fake provider that notes when each request starts and
// its response ends. keep is what it records of each request (see
// fp.Hooks.Keep); it must keep seqHeader.
func timedServer(keep func(fp.Request) fp.Request) (*fp.Server, func() []span) {
	var mu sync.Mutex
	var spans []span
	srv := fp.NewServerWithHooks(fp.Hooks{Keep: keep, Lean: keep != nil, Handler: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			n := len(spans)
			spans = append(spans, span{start: time.Now()})
			mu.Unlock()
			r.Header.Set(seqHeader, strconv.Itoa(n))
			h.ServeHTTP(w, r)
			mu.Lock()
			spans[n].end = time.Now()
			mu.Unlock()
		})
	}})
	return srv, func() []span {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(spans)
	}
}

// spanOf is the span of a recorded request.
func spanOf(spans []span, q fp.Request) (span, bool) {
	n, err := strconv.Atoi(q.Header.Get(seqHeader))
	if err != nil || n < 0 || n >= len(spans) {
		return span{}, false
	}
	return spans[n], true
}

// longSession runs ply -p through a session of the given number of rounds
// in a window of the given size (tokens).
func longSession(tb testing.TB, rounds, window int) *longRun {
	tb.Helper()
	r := &longRun{dir: tb.TempDir(), home: filepath.Join(tb.TempDir(), "home")}
	var big strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&big, "line %04d %s\n", i, strings.Repeat("x", 90))
	}
	if err := os.WriteFile(filepath.Join(r.dir, "big.txt"), []byte(big.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	var keep func(fp.Request) fp.Request
	run := runLong
	if _, bench := tb.(*testing.B); bench {
		// A benchmark runs ply in a process of its own, as a provider is
		// in another: the server's decoding of ever larger requests (a
		// few megabytes a round near the window's end) would otherwise set
		// the pace of ply's garbage collection and take its CPU.
		run = runLongProcess
		// The benchmark keeps of each request only what isMain needs,
		// not the hundreds of megabytes of them.
		keep = func(q fp.Request) fp.Request {
			return fp.Request{Turn: q.Turn, Header: http.Header{seqHeader: q.Header[seqHeader]},
				Messages: slices.Clone(q.Messages[:min(1, len(q.Messages))])}
		}
	}
	srv, times := timedServer(keep)
	tb.Cleanup(srv.Close)
	r.srv = srv
	longSettings(tb, r.home, srv.URL, window)
	srv.Append(longTurns(0, rounds)...)
	res := run(r.dir, r.home, "-y", "-p", "read big.txt page by page")
	if res.code != 0 {
		tb.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
	}
	spans := times()
	reqs := srv.Requests()
	for k := 0; k+1 < len(reqs); k++ {
		this, ok1 := spanOf(spans, reqs[k])
		next, ok2 := spanOf(spans, reqs[k+1])
		if isMain(reqs[k]) && ok1 && ok2 {
			r.gaps = append(r.gaps, next.start.Sub(this.end))
		}
	}
	return r
}

func isMain(r fp.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Text(), longSystemMark)
}

func runLong(dir, home string, args ...string) result {
	env := longEnv(home)
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir})
	return result{out.String(), errb.String(), code}
}

// longEnv is the whole environment of a long session's ply.
func longEnv(home string) map[string]string {
	return map[string]string{"OPENAI_API_KEY": "k", "PLY_HOME": home, "PLY_RETRY_DELAY_SCALE": "0.001"}
}

// runLongProcess is runLong in a process of its own: this test binary
// run as ply (runPlyEnv), with the same environment and nothing else.
func runLongProcess(dir, home string, args ...string) result {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = []string{runPlyEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + home}
	for k, v := range longEnv(home) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	// -1 when it never started or a signal ended it: the error says which.
	code := cmd.ProcessState.ExitCode()
	if err != nil && code <= 0 {
		code = -1
		errb.WriteString(err.Error())
	}
	return result{out.String(), errb.String(), code}
}

// transcriptOf returns the path of the one session under home.
func transcriptOf(tb testing.TB, home string) string {
	tb.Helper()
	m, err := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if err != nil || len(m) != 1 {
		tb.Fatalf("transcripts under %s: %v %v", home, m, err)
	}
	return m[0]
}

// heldBytes returns the size of the transcript at path and of the
// messages of its entry lines.
func heldBytes(tb testing.TB, path string) (size, held int64) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		size += int64(len(sc.Bytes())) + 1
		var rec struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Type == "entry" {
			held += int64(len(rec.Message))
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return size, held
}

// messagesJSON is the wire form of messages, for comparing requests.
func messagesJSON(tb testing.TB, msgs []fp.Message) string {
	tb.Helper()
	b, err := json.MarshalIndent(msgs, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// Resuming a session that was cut and summarised round after round
// rebuilds the history the live session had: the first request after
// --continue starts with exactly the messages the last one of the live
// session held, and its answer.
func TestLongSessionResumesTheLiveHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 60-round session")
	}
	r := longSession(t, 60, longWindow)
	reqs := r.srv.Requests()
	last := reqs[len(reqs)-1]
	if !isMain(last) || !strings.Contains(last.Messages[len(last.Messages)-1].Text(), "line") {
		t.Fatalf("the last request is not the last round's: %.200s", last.Raw)
	}
	cuts, summaries := 0, 0
	for _, q := range reqs {
		if !isMain(q) {
			summaries++
		}
	}
	for _, m := range last.Messages {
		if strings.Contains(m.Text(), "were cut") {
			cuts++
		}
	}
	if cuts == 0 || summaries == 0 {
		t.Fatalf("%d results cut, %d summaries: the session did not run near its limit", cuts, summaries)
	}
	size, held := heldBytes(t, transcriptOf(t, r.home))
	t.Logf("%d requests, %d summaries, %d results cut in the last; transcript %d bytes, messages %d bytes", len(reqs), summaries, cuts, size, held)

	// A window that holds it all, so that the resumed request is sent as
	// it was rebuilt.
	longSettings(t, r.home, r.srv.URL, 1_000_000)
	r.srv.Append(fp.Turn{fp.Text("resumed.")})
	res := runLong(r.dir, r.home, "--continue", "-p", "carry on")
	if res.code != 0 {
		t.Fatalf("--continue: exit %d; stderr:\n%s", res.code, res.stderr)
	}
	next := r.srv.Requests()[len(reqs)]
	live := append(slices.Clone(last.Messages[1:]), fp.Message{Role: "assistant", Content: json.RawMessage(`"done."`)})
	if len(next.Messages) < len(live)+2 {
		t.Fatalf("resumed request holds %d messages, the live history %d", len(next.Messages), len(live))
	}
	got, want := messagesJSON(t, next.Messages[1:len(live)+1]), messagesJSON(t, live)
	if got != want {
		t.Errorf("resumed history differs from the live one:\n got %.2000s\nwant %.2000s", got, want)
	}
}

// medianGap is the median of the gaps of rounds from..to-1.
func medianGap(gaps []time.Duration, from, to int) time.Duration {
	g := slices.Clone(gaps[min(from, len(gaps)):min(to, len(gaps))])
	if len(g) == 0 {
		return 0
	}
	slices.Sort(g)
	return g[len(g)/2]
}

// BenchmarkLongSession runs a session near its context limit and reports
// ply's own time between two round-trips, the read_file call included,
// around round 10 and round 500 (medians of rounds 5–14 and 495–504), and
// the transcript's size over that of the messages its entries hold. In a
// 16k-token window, 1,000 rounds: from the first dozen rounds on each
// request cuts a result, and the older history is summarised now and then.
// In a 128k one, 510 rounds: the history grows to about 500 KB before the
// cuts begin, near round 120.
//
// ply runs in a process of its own (this test binary, as ply), the fake
// provider in the benchmark's, which times each request's arrival and
// its answer's end.
//
// Unless PLY_BENCH_LONG=1 (bench/run sets it), the sessions are of 12
// rounds: enough to run the code, not to measure it.
func BenchmarkLongSession(b *testing.B) {
	cases := []struct{ window, rounds int }{{longWindow, 1000}, {128_000, 510}}
	if !longBench() {
		cases = []struct{ window, rounds int }{{longWindow, 12}}
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("window=%d/rounds=%d", c.window, c.rounds), func(b *testing.B) {
			for b.Loop() {
				r := longSession(b, c.rounds, c.window)
				b.StopTimer()
				size, held := heldBytes(b, transcriptOf(b, r.home))
				b.ReportMetric(float64(medianGap(r.gaps, 5, 15).Microseconds())/1000, "ms/round@10")
				if c.rounds >= 505 {
					b.ReportMetric(float64(medianGap(r.gaps, 495, 505).Microseconds())/1000, "ms/round@500")
				}
				b.ReportMetric(float64(readPageTime(b, r.dir).Microseconds())/1000, "ms/read_file")
				b.ReportMetric(float64(size)/float64(held), "transcript/messages")
				b.ReportMetric(float64(size)/1e6, "transcript-MB")
				b.StartTimer()
			}
		})
	}
}

func longBench() bool { return os.Getenv("PLY_BENCH_LONG") == "1" }

// readPageTime is the median time of the read_file calls a long session
// makes (its pages of big.txt), run in process after it: the tool's own
// part of a round's time.
func readPageTime(b *testing.B, dir string) time.Duration {
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	rf := tools.NewReadFile(ws)
	var times []time.Duration
	for i := range 90 {
		args := json.RawMessage(fmt.Sprintf(`{"file_path":"big.txt","offset":%d,"limit":40}`, (i%30)*40))
		start := time.Now()
		if res, err := rf.Execute(context.Background(), args, nil); err != nil || res.IsError {
			b.Fatalf("read_file: %v %s", err, res.Output)
		}
		times = append(times, time.Since(start))
	}
	return medianGap(times, 0, len(times))
}

// BenchmarkContinue measures ply --continue -p of a 3,000-round session
// near its context limit (the 16k-token window of BenchmarkLongSession):
// loading the transcript, rebuilding the history, one round answered with
// text, and exiting. The session is made once per run of the benchmark,
// so run it with -benchtime Nx rather than -count; ms/continue is the
// median of the N. Unless PLY_BENCH_LONG=1, the session is of 12 rounds.
func BenchmarkContinue(b *testing.B) {
	rounds := 3000
	if !longBench() {
		rounds = 12
	}
	r := longSession(b, rounds, longWindow)
	path := transcriptOf(b, r.home)
	size, _ := heldBytes(b, path)
	orig, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	for b.Loop() {
		b.StopTimer()
		// Synced, as a transcript ply wrote is by the time it is
		// resumed: else the resume's first sync would write out the
		// whole file the benchmark just put back.
		if err := writeSynced(path, orig); err != nil {
			b.Fatal(err)
		}
		r.srv.Append(fp.Turn{fp.When(longSystemMark), fp.Text("resumed.")})
		for i := range 4 {
			r.srv.Append(fp.Turn{fp.When(longSummary), fp.Text(fmt.Sprintf("SUMMARY %d", i))})
		}
		b.StartTimer()
		start := time.Now()
		if res := runLong(r.dir, r.home, "--continue", "-p", "carry on"); res.code != 0 {
			b.Fatalf("exit %d; stderr:\n%s", res.code, res.stderr)
		}
		times = append(times, time.Since(start))
	}
	b.ReportMetric(float64(medianGap(times, 0, len(times)).Microseconds())/1000, "ms/continue")
	b.ReportMetric(float64(size)/1e6, "transcript-MB")
	b.ReportMetric(float64(rounds), "rounds")
}

// writeSynced writes data to the file at path and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
