package cli

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// responseMB is the size of the streamed answer in the RSS benchmark: 60
// with PLY_BENCH_LONG=1, else 4, enough to run the code (CI runs every
// benchmark); PLY_RSS_MB sets it for exploring.
var responseMB = 4

func init() {
	if longBench() {
		responseMB = 60
	}
	if n, err := strconv.Atoi(os.Getenv("PLY_RSS_MB")); err == nil && n > 0 {
		responseMB = n
	}
}

// bigAnswer scripts one text answer of about mb MB in 4 KiB chunks.
func bigAnswer(mb int) fp.Turn {
	piece := strings.Repeat("0123456789abcdef", 256) // 4 KiB
	var t fp.Turn
	for i := 0; i < mb<<8; i++ {
		t = append(t, fp.Text(piece))
	}
	return t
}

// BenchmarkLargeResponseRSS runs ply on a 60 MB streamed answer in a child
// process (so that the fake server's copy is not counted), once in each
// output format, and reports the child's peak RSS above its baseline
// (VmHWM less the RSS just before the run) and its peak live heap above
// the heap before the run (sampled), in MB and as multiples of the
// response size; the bound is 3×. It also reports the bytes the run
// allocated (allocMB/run) and the bytes it printed (outMB).
func BenchmarkLargeResponseRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/self/status")
	}
	for _, format := range []string{"text", "json", "stream-json"} {
		b.Run("format="+format, func(b *testing.B) {
			// One run whatever b.N: a run takes seconds and its figures
			// do not vary with repetition; ns/op is that run's time.
			start := time.Now()
			f := largeResponse(b, format)
			mb := float64(responseMB)
			b.ReportMetric(f.rssAbove, "peakMB-above-base")
			b.ReportMetric(f.rssAbove/mb, "x-response")
			b.ReportMetric(f.heapAbove, "heapMB-above-base")
			b.ReportMetric(f.heapAbove/mb, "heap-x-response")
			b.ReportMetric(f.allocMB, "allocMB/run")
			b.ReportMetric(f.outMB, "outMB")
			b.ReportMetric(float64(time.Since(start).Nanoseconds()), "ns/op")
		})
	}
}

// rssFigures are what largeResponse measures, in MB.
type rssFigures struct{ rssAbove, heapAbove, allocMB, outMB float64 }

// largeResponse runs ply -p -o format on a responseMB answer in a child
// process and returns its figures.
func largeResponse(tb testing.TB, format string) rssFigures {
	tb.Helper()
	srv := fp.NewServer(bigAnswer(responseMB))
	defer srv.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLargeResponseChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PLY_RSS_CHILD_URL="+srv.URL, "PLY_RSS_CHILD_HOME="+tb.TempDir(), "PLY_RSS_CHILD_FORMAT="+format)
	cmd.Dir = tb.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("child: %v\n%s", err, out)
	}
	var base, peak, got, alloc, heapBase, heapPeak int64
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 7 && f[0] == "RSS" {
			base, _ = strconv.ParseInt(f[1], 10, 64)
			peak, _ = strconv.ParseInt(f[2], 10, 64)
			got, _ = strconv.ParseInt(f[3], 10, 64)
			alloc, _ = strconv.ParseInt(f[4], 10, 64)
			heapBase, _ = strconv.ParseInt(f[5], 10, 64)
			heapPeak, _ = strconv.ParseInt(f[6], 10, 64)
		}
	}
	if peak == 0 || got < int64(responseMB)<<20 {
		tb.Fatalf("child reported no figures or a short answer (%d bytes):\n%s", got, out)
	}
	return rssFigures{
		rssAbove:  float64(peak-base) / (1 << 20),
		heapAbove: float64(heapPeak-heapBase) / (1 << 20),
		allocMB:   float64(alloc) / (1 << 20),
		outMB:     float64(got) / (1 << 20),
	}
}

// TestLargeResponseChild is the benchmark's child: it runs one ply session
// against the server named in the environment, in the output format it
// names, and prints "RSS base peak output-bytes allocated-bytes heap-base
// heap-peak".
func TestLargeResponseChild(t *testing.T) {
	url := os.Getenv("PLY_RSS_CHILD_URL")
	if url == "" {
		t.Skip("run by BenchmarkLargeResponseRSS")
	}
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": url,
		"PLY_HOME": os.Getenv("PLY_RSS_CHILD_HOME")}
	runtime.GC()
	base := procStatus(t, "VmRSS")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	heapPeak := make(chan uint64)
	go peakHeap(os.Getenv("PLY_RSS_PEAKPROFILE"), stop, heapPeak)
	cw := &countingWriter{}
	wd, _ := os.Getwd()
	format := cmp.Or(os.Getenv("PLY_RSS_CHILD_FORMAT"), "text")
	code := Main(context.Background(), []string{"-y", "-o", format, "-p", "write a lot"}, IO{StdinIsTTY: true, Stdout: cw, Stderr: io.Discard,
		Getenv: func(k string) string { return env[k] }, Cwd: wd})
	close(stop)
	peakInuse := <-heapPeak
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	runtime.ReadMemStats(&after)
	if p := os.Getenv("PLY_RSS_PROFILE"); p != "" {
		// For finding copies: go tool pprof -sample_index=alloc_space.
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	fmt.Printf("RSS %d %d %d %d %d %d\n", base, procStatus(t, "VmHWM"), cw.n, after.TotalAlloc-before.TotalAlloc, before.HeapAlloc, peakInuse)
}

// countingWriter counts what ply prints. Like the *os.File ply prints to,
// it takes a string without copying it.
type countingWriter struct{ n int64 }

func (w *countingWriter) WriteString(s string) (int, error) { w.n += int64(len(s)); return len(s), nil }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// procStatus reads a "kB" field of /proc/self/status, in bytes.
func procStatus(t *testing.T, field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// peakHeap samples the live heap every few milliseconds until stop is
// closed, then sends the highest it saw. When path is not empty, it also
// writes an in-use heap profile there whenever the heap reaches a new high
// (8 MB above the last written): a look at what is held at the peak.
func peakHeap(path string, stop chan struct{}, peak chan<- uint64) {
	var high, written uint64
	tk := time.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	for {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		high = max(high, ms.HeapAlloc)
		if path != "" && ms.HeapAlloc > written+(8<<20) {
			written = ms.HeapAlloc
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
		select {
		case <-stop:
			peak <- high
			return
		case <-tk.C:
		}
	}
}
