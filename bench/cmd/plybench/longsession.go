package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// longSessions runs the long-session benchmarks of internal/cli
// (BenchmarkLongSession, BenchmarkContinue) at their full size, count times
// each, and adds their figures to the table: the transcript's size over
// the messages it holds after 1,000 rounds near the context limit, ply's
// own time between round-trips at round 10 and round 500, and --continue
// of a 3,000-round session. Each session is made afresh per count, so
// this takes a few minutes.
func (b *bench) longSessions(module string, count int) error {
	run := func(pattern, benchTime, cnt string) ([]*goBenchResult, error) {
		a := []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", benchTime, "-count", cnt, "./internal/cli"}
		cmd := exec.CommandContext(b.ctx, "go", a...)
		cmd.Dir = module
		cmd.Env = append(os.Environ(), "PLY_BENCH_LONG=1")
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go %s: %v\n%s%s", strings.Join(a, " "), err, tail(out.String()), tail(stderr.String()))
		}
		return parseGoBench(out.Bytes()), nil
	}
	n := strconv.Itoa(count)
	// A session per run, so -count; and one session resumed count times,
	// so -benchtime Nx.
	results, err := run("BenchmarkLongSession", "1x", n)
	if err != nil {
		return err
	}
	cont, err := run("BenchmarkContinue", n+"x", "1")
	if err != nil {
		return err
	}
	results = append(results, cont...)
	for _, r := range results {
		name := strings.TrimPrefix(r.name, "Benchmark")
		rw := &row{group: "long session", values: r.values}
		switch {
		case r.unit == "transcript/messages":
			rw.name, rw.unit, rw.target = name+": transcript bytes / bytes of the messages it holds", unitRatio, 2
		case r.unit == "transcript-MB":
			rw.name, rw.unit = name+": transcript size", unitBytes
			rw.values = scale(r.values, 1e6)
		case strings.HasPrefix(r.unit, "ms/round@"):
			rw.name, rw.unit = name+": ply's time between round-trips, read_file included, at round "+strings.TrimPrefix(r.unit, "ms/round@"), unitDuration
			rw.values = scale(r.values, float64(time.Millisecond))
			if r.unit == "ms/round@500" {
				rw.target = float64(time.Millisecond)
			}
		case r.unit == "ms/read_file":
			rw.name, rw.unit = name+": read_file's own time (the session's page reads, in process, median)", unitDuration
			rw.values = scale(r.values, float64(time.Millisecond))
		case r.unit == "ms/continue":
			rw.name, rw.unit, rw.target = name+": ply --continue -p, in-process, median of the runs", unitDuration, float64(300*time.Millisecond)
			rw.values = scale(r.values, float64(time.Millisecond))
		default:
			continue
		}
		b.t.add(rw)
	}
	return nil
}

func scale(vs []float64, by float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v * by
	}
	return out
}
