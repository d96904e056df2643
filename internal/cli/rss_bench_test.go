package cli

import (
	"bufio"
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

// responseMB is the size of the streamed answer in the RSS benchmark;
// PLY_RSS_MB changes it for exploring.
var responseMB = 50

func init() {
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

// BenchmarkLargeResponseRSS runs ply on a 50 MB streamed answer in a child
// process (so that the fake server's copy is not counted) and reports the
// child's peak RSS above its baseline (VmHWM less the RSS just before the
// run), in MB and as a multiple of the response size. The bound
// is 3×.
//
// Measured 2.5× (125 MB for 50 MB; it was 19.5× before the reply was held
// once, 5.6× before the transcript stopped copying large texts through
// encoding/json, 3.55× before huge replies collected their garbage as they
// grow). It also reports the bytes the run allocated (allocMB/run).
func BenchmarkLargeResponseRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/self/status")
	}
	// One run whatever b.N: a run takes seconds and its figures do not
	// vary with repetition; ns/op is that run's time.
	start := time.Now()
	for range 1 {
		srv := fp.NewServer(bigAnswer(responseMB))
		cmd := exec.Command(os.Args[0], "-test.run=^TestLargeResponseChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PLY_RSS_CHILD_URL="+srv.URL, "PLY_RSS_CHILD_HOME="+b.TempDir())
		cmd.Dir = b.TempDir()
		out, err := cmd.CombinedOutput()
		srv.Close()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var base, peak, got, alloc int64
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) == 5 && f[0] == "RSS" {
				base, _ = strconv.ParseInt(f[1], 10, 64)
				peak, _ = strconv.ParseInt(f[2], 10, 64)
				got, _ = strconv.ParseInt(f[3], 10, 64)
				alloc, _ = strconv.ParseInt(f[4], 10, 64)
			}
		}
		if peak == 0 || got < int64(responseMB)<<20 {
			b.Fatalf("child reported no figures or a short answer (%d bytes):\n%s", got, out)
		}
		above := float64(peak-base) / (1 << 20)
		b.ReportMetric(above, "peakMB-above-base")
		b.ReportMetric(above/float64(responseMB), "x-response")
		b.ReportMetric(float64(alloc)/(1<<20), "allocMB/run")
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds()), "ns/op")
}

// TestLargeResponseChild is the benchmark's child: it runs one ply session
// against the server named in the environment and prints "RSS base peak
// answer-bytes allocated-bytes".
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
	if p := os.Getenv("PLY_RSS_PEAKPROFILE"); p != "" {
		stop := make(chan struct{})
		defer close(stop)
		go peakProfile(p, stop)
	}
	cw := &countingWriter{}
	wd, _ := os.Getwd()
	code := Main(context.Background(), []string{"-y", "-p", "write a lot"}, IO{StdinIsTTY: true, Stdout: cw, Stderr: io.Discard,
		Getenv: func(k string) string { return env[k] }, Cwd: wd})
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
	fmt.Printf("RSS %d %d %d %d\n", base, procStatus(t, "VmHWM"), cw.n, after.TotalAlloc-before.TotalAlloc)
}

type countingWriter struct{ n int64 }

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

// peakProfile writes an in-use heap profile to path whenever the heap in
// use reaches a new high, until stop is closed: a look at what is held at
// the peak.
func peakProfile(path string, stop chan struct{}) {
	var high uint64
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse <= high+(8<<20) {
			continue
		}
		high = ms.HeapInuse
		if f, err := os.Create(path); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
}
