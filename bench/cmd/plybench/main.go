// Command plybench measures ply's own speed: startup, end-to-end runs of
// the built binary against the scripted fake provider on loopback, the
// framework's overhead per round, peak memory, a 20-round session next to
// the peer agent crush (S4), the search and read tools on a large
// generated tree (next to rg and git grep), and the Go micro-benchmarks
// of the SSE parser, the stream assembly and the scheduler. It prints
// one Markdown table of min / median / max.
//
// It is run by bench/run, which builds ply first; see BENCHMARKS.md for
// what each figure means. Figures are reported, never asserted: the exit
// status is non-zero only when a scenario fails (ply exits non-zero, the
// expected output or request is missing, a tool answers with an error).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

func main() {
	var (
		bin       = flag.String("ply", "", "the ply binary to measure (required)")
		n         = flag.Int("n", 20, "runs per process scenario")
		toolRuns  = flag.Int("tool-runs", 5, "runs per tool-speed figure")
		cache     = flag.String("cache", filepath.Join(os.TempDir(), "ply-bench"), "cache directory of the generated large tree and 100 MB file")
		noTools   = flag.Bool("no-tools", false, "skip the tool-speed figures (large tree, 100 MB file)")
		benchTime = flag.String("benchtime", "1s", "-benchtime for the Go benchmarks; \"off\" skips them")
		benchCnt  = flag.Int("bench-count", 5, "-count for the Go benchmarks")
		module    = flag.String("module", ".", "the module root, for the Go benchmarks")
		profile   = flag.String("profile", "", "write CPU profiles of the in-process tool figures to this directory")
		longCnt   = flag.Int("long-count", 3, "runs of the long-session figures (minutes each); 0 skips them")
		fleetN    = flag.Int("fleet", 16, "sessions run at once, each in its own worktree, for the parallel figures; 0 skips them")
		ckptFiles = flag.String("ckpt-files", "", "comma-separated tree sizes (files) for the checkpoint figures at scale, e.g. 50000,200000; empty skips them")
		onlyTen   = flag.Bool("session-only", false, "run only the 10-round session, with ply's time between each two requests: a quick measure of one change")
	)
	flag.Parse()
	if *bin == "" || *n < 1 || *toolRuns < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	b := &bench{ctx: ctx, bin: *bin, n: *n, toolRuns: *toolRuns, profileDir: *profile, sessionOnly: *onlyTen}
	if *profile != "" {
		if err := os.MkdirAll(*profile, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "plybench:", err)
			os.Exit(2)
		}
	}
	start, load0 := time.Now(), loadavg()
	if err := dropFromPageCache(b.bin); err != nil {
		b.t.notef("ply was not dropped from the page cache before the first run (%v): its peak RSS depends on how the build wrote it.", err)
	} else {
		b.t.notef("ply was dropped from the page cache before the first run, so that it was read from disk as an installed binary is after a restart.")
	}
	if *onlyTen {
		b.step("10-round session", b.toolSessionScenario)
		*noTools, *fleetN, *longCnt, *ckptFiles, *benchTime = true, 0, 0, "", "off"
	} else {
		b.step("process scenarios", b.processScenarios)
		b.step("checkpoint store of a source tree", func() error { return b.sourceStore(*module) })
	}
	if !*noTools {
		b.step("tool speed", func() error { return b.toolSpeed(*cache) })
	}
	if *fleetN > 0 {
		b.step("parallel sessions", func() error { return b.fleetRuns(*fleetN, min(*n, 3)) })
	}
	if *longCnt > 0 {
		b.step("long sessions", func() error { return b.longSessions(*module, *longCnt) })
	}
	for _, f := range strings.Split(*ckptFiles, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			b.step(fmt.Sprintf("checkpoints at %d files", n), func() error { return b.checkpointScale(*cache, n) })
		}
	}
	if *benchTime != "off" {
		b.step("Go benchmarks", func() error { return b.goBenchmarks(*module, *benchTime, *benchCnt) })
	}

	fmt.Printf("\nply benchmarks, %s, %s in all\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), time.Since(start).Round(time.Second))
	fmt.Printf("Machine: %s.\n", machine())
	if la := loadavg(); la != "" {
		fmt.Printf("Load average (1, 5, 15 min) at the start: %s; at the end: %s.\n", load0, la)
	}
	fmt.Println()
	b.t.write(os.Stdout)
	if len(b.failures) > 0 {
		fmt.Fprintf(os.Stderr, "\nplybench: failed (%d group(s)):\n", len(b.failures))
		for _, f := range b.failures {
			fmt.Fprintln(os.Stderr, "  - "+strings.ReplaceAll(f, "\n", "\n    "))
		}
		os.Exit(1)
	}
}

// bench holds the run's settings, the table and the failures so far.
type bench struct {
	ctx        context.Context
	bin        string
	n          int
	toolRuns   int
	profileDir string
	// sessionOnly: only the 10-round session runs, reported round by round.
	sessionOnly bool
	t           table
	failures    []string
}

// step runs one group of scenarios, logging progress on stderr (stdout
// holds only the table) and keeping going after a failure, so that one
// broken scenario does not hide the others' figures.
func (b *bench) step(name string, fn func() error) {
	fmt.Fprintf(os.Stderr, "plybench: %s...\n", name)
	t0 := time.Now()
	if err := fn(); err != nil {
		b.failures = append(b.failures, name+": "+err.Error())
	}
	fmt.Fprintf(os.Stderr, "plybench: %s done in %s\n", name, time.Since(t0).Round(time.Millisecond))
}

// progress notes on stderr what has just been measured, so that a slow
// run shows where its time goes.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "plybench:   "+format+"\n", args...)
}

// repeat runs p once to warm the page cache and the binary, then n times,
// and returns the measured runs. It stops at the first failure.
func (b *bench) repeat(p plyRun, n int) ([]runResult, error) {
	if _, err := p.run(b.ctx); err != nil {
		return nil, err
	}
	var out []runResult
	for range n {
		r, err := p.run(b.ctx)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (b *bench) processScenarios() error {
	var errs []error
	scratch, err := os.MkdirTemp("", "plybench-ws-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)

	// The floor: the Go runtime and package initialisation, no work.
	version, err := b.repeat(plyRun{bin: b.bin, dir: scratch, args: []string{"--version"},
		check: func(out string, _ []fp.Request) error {
			if !strings.HasPrefix(out, "ply ") {
				return fmt.Errorf("--version printed %q", out)
			}
			return nil
		}}, b.n)
	if err != nil {
		errs = append(errs, fmt.Errorf("--version: %w", err))
	}
	b.t.add(&row{group: "startup", name: "`ply --version`, process start → exit", unit: unitDuration,
		values: pick(version, func(r runResult) float64 { return float64(r.wall) })})
	b.t.add(&row{group: "startup", name: "`ply --version` peak RSS", unit: unitBytes,
		values: pick(version, func(r runResult) float64 { return r.maxRSS })})

	// Where startup goes before main: the runtime's trace of package
	// initialisers, summed, and the costliest one.
	inits, err := b.repeat(plyRun{bin: b.bin, dir: scratch, args: []string{"--version"}, env: []string{"GODEBUG=inittrace=1"}}, b.n)
	if err != nil {
		errs = append(errs, fmt.Errorf("--version with inittrace: %w", err))
	}
	var initTotal, initBytes []float64
	worst := map[string][]float64{}
	for _, r := range inits {
		total, pkgs, bytes := parseInitTrace(r.stderr)
		initTotal = append(initTotal, total)
		initBytes = append(initBytes, bytes)
		for p, d := range pkgs {
			worst[p] = append(worst[p], d)
		}
	}
	b.t.add(&row{group: "startup", name: "package initialisers, all (GODEBUG=inittrace=1)", unit: unitDuration, values: initTotal})
	// What they allocate does not depend on the machine's load: the
	// steady figure to compare builds by.
	b.t.add(&row{group: "startup", name: "package initialisers, memory allocated", unit: unitBytes, values: initBytes})
	if top := costliest(worst); top != "" {
		b.t.add(&row{group: "startup", name: "package initialiser of " + top, unit: unitDuration, values: worst[top]})
	}

	one := plyRun{bin: b.bin, dir: scratch, args: []string{"-y", "-p", "say hello"},
		rounds: []round{{text: "Hello."}},
		check: func(out string, _ []fp.Request) error {
			if out != "Hello.\n" {
				return fmt.Errorf("stdout = %q, want the scripted answer", out)
			}
			return nil
		}}
	ones, err := b.repeat(one, b.n)
	if err != nil {
		errs = append(errs, fmt.Errorf("one-round answer: %w", err))
	}
	b.t.add(&row{group: "startup", name: "process start → first byte of the first request", unit: unitDuration,
		target: float64(20 * time.Millisecond),
		values: pick(ones, func(r runResult) float64 { return float64(r.startup) })})
	b.t.add(&row{group: "one-round answer", name: "end to end (process start → exit)", unit: unitDuration,
		target: float64(50 * time.Millisecond),
		values: pick(ones, func(r runResult) float64 { return float64(r.wall) })})
	b.t.add(&row{group: "one-round answer", name: "peak RSS", unit: unitBytes,
		values: pick(ones, func(r runResult) float64 { return r.maxRSS })})
	// The first request's body: the system prompt and the tool
	// declarations, sent again with every request. Without -y a run no
	// one answers leaves out the tools its approval mode would refuse.
	b.t.add(&row{group: "one-round answer", name: "first request body, -y (bytes)", unit: unitCount,
		values: pick(ones, func(r runResult) float64 { return r.firstBody })})
	for _, mode := range []string{"default", "plan"} {
		p := one
		p.args = []string{"--approval-mode", mode, "-p", "say hello"}
		rs, err := b.repeat(p, 1)
		if err != nil {
			errs = append(errs, fmt.Errorf("one-round answer, %s mode: %w", mode, err))
		}
		b.t.add(&row{group: "one-round answer", name: "first request body, " + mode + " mode (bytes)", unit: unitCount,
			values: pick(rs, func(r runResult) float64 { return r.firstBody })})
	}

	if _, err := exec.LookPath("git"); err != nil {
		b.t.notef("git is not installed: the repository snapshot's start-up cost is not measured.")
	} else if repo, err := os.MkdirTemp("", "plybench-repo-"); err != nil {
		errs = append(errs, err)
	} else {
		defer os.RemoveAll(repo)
		if err := smallRepo(repo); err != nil {
			errs = append(errs, err)
		} else if err := b.snapshotFigure("small git repository", repo); err != nil {
			errs = append(errs, err)
		}
	}
	if err := b.toolSessionScenario(); err != nil {
		errs = append(errs, fmt.Errorf("10-round session: %w", err))
	}
	if err := b.s4Scenario(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// toolSessionScenario runs the 10-round session; each run gets a fresh
// copy of the workspace, since the session edits it.
func (b *bench) toolSessionScenario() error {
	rounds := toolSession()
	var wss []string
	defer func() {
		for _, d := range wss {
			os.RemoveAll(d)
		}
	}()
	newWS := func() (string, error) {
		d, err := os.MkdirTemp("", "plybench-session-")
		if err != nil {
			return "", err
		}
		wss = append(wss, d)
		return d, makeWorkspace(d)
	}
	check := func(out string, reqs []fp.Request) error {
		if out != "Done.\n" {
			return fmt.Errorf("stdout = %q, want the scripted answer", out)
		}
		shell := reqs[5].Messages[len(reqs[5].Messages)-1]
		if shell.Role != "tool" || !strings.Contains(shell.Text(), "ok") {
			return fmt.Errorf("the shell call's result is missing: %+v", shell)
		}
		return nil
	}
	// Each run is paired with an in-process run of the same tool calls
	// right after it, so that the two see about the same machine load: on
	// a shared machine a shell spawn alone can take 2 ms or 20.
	var runs []runResult
	var toolTimes []float64
	// The tools' own time in each round, reported when sessionOnly.
	var perRound [][]time.Duration
	for i := range b.n + 1 { // the first pair warms up and is not counted
		ws, err := newWS()
		if err != nil {
			return err
		}
		r, err := plyRun{bin: b.bin, dir: ws, args: []string{"-y", "-p", "tidy the demo project"}, rounds: rounds,
			check: func(out string, reqs []fp.Request) error {
				if err := check(out, reqs); err != nil {
					return err
				}
				got, _ := os.ReadFile(filepath.Join(ws, "main.go"))
				if !strings.Contains(string(got), "hello, world") {
					return errors.New("main.go was not edited")
				}
				return nil
			}}.run(b.ctx)
		if err != nil {
			return err
		}
		per, err := roundToolTimes(b.ctx, rounds)
		if err != nil {
			return fmt.Errorf("tools in-process: %w", err)
		}
		var d time.Duration
		for _, t := range per {
			d += t
		}
		if i > 0 {
			runs = append(runs, r)
			toolTimes = append(toolTimes, float64(d))
			perRound = append(perRound, per)
		}
	}
	nr := float64(len(rounds))

	g := fmt.Sprintf("%d-round session", len(rounds))
	b.t.add(&row{group: g, name: "end to end (process start → exit)", unit: unitDuration,
		values: pick(runs, func(r runResult) float64 { return float64(r.wall) })})
	b.t.add(&row{group: g, name: "process start → first request byte", unit: unitDuration,
		values: pick(runs, func(r runResult) float64 { return float64(r.startup) })})
	b.t.add(&row{group: g, name: "fake server's own time, all requests", unit: unitDuration,
		values: pick(runs, func(r runResult) float64 { return float64(r.serverTotal()) })})
	b.t.add(&row{group: g, name: "the tools' own time, measured in-process", unit: unitDuration, values: toolTimes})
	b.t.add(&row{group: g, name: "framework overhead per round (excl. startup, server, tools)", unit: unitDuration,
		target: float64(2 * time.Millisecond),
		values: func() []float64 {
			out := make([]float64, len(runs))
			for i, r := range runs {
				out[i] = (float64(r.wall-r.startup-r.serverTotal()) - toolTimes[i]) / nr
			}
			return out
		}()})
	b.t.add(&row{group: g, name: "framework overhead per round, tools included", unit: unitDuration,
		values: pick(runs, func(r runResult) float64 {
			return float64(r.wall-r.startup-r.serverTotal()) / nr
		})})
	b.t.add(&row{group: g, name: "peak RSS", unit: unitBytes, target: 25 << 20,
		values: pick(runs, func(r runResult) float64 { return r.maxRSS })})
	if b.sessionOnly {
		// ply's time between the end of one response and the first byte
		// of the next request, less the same round's tools run in-process,
		// round by round; and from the last response to the exit.
		for k := 1; k <= len(rounds); k++ {
			name := fmt.Sprintf("response %d → request %d, less the tools' own time", k, k+1)
			if k == len(rounds) {
				name = fmt.Sprintf("response %d → exit", k)
			}
			vals := make([]float64, len(runs))
			for i, r := range runs {
				end := r.at[k-1] + r.server[k-1]
				if k == len(rounds) {
					vals[i] = float64(r.wall - end)
				} else {
					vals[i] = float64(r.at[k] - end - perRound[i][k-1])
				}
			}
			b.t.add(&row{group: g, name: name, unit: unitDuration, values: vals})
		}
		for k := range len(rounds) - 1 {
			vals := make([]float64, len(runs))
			for i := range runs {
				vals[i] = float64(perRound[i][k])
			}
			b.t.add(&row{group: g, name: fmt.Sprintf("round %d: the tools' own time, in-process", k+1), unit: unitDuration, values: vals})
		}
	}
	return nil
}

func pick(rs []runResult, f func(runResult) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// initLine is one line of GODEBUG=inittrace=1 output:
// "init net/http @7.8 ms, 0.081 ms clock, 4712 bytes, 49 allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes`)

// parseInitTrace returns the summed clock time of every initialiser and
// each package's own, in nanoseconds, and the bytes they allocated in all.
func parseInitTrace(stderr string) (float64, map[string]float64, float64) {
	total, pkgs, bytes := 0.0, map[string]float64{}, 0.0
	for _, line := range strings.Split(stderr, "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ms, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		total += ms * 1e6
		pkgs[m[1]] += ms * 1e6
		if b, err := strconv.ParseFloat(m[3], 64); err == nil {
			bytes += b
		}
	}
	return total, pkgs, bytes
}

// costliest returns the package whose initialiser has the highest median.
func costliest(pkgs map[string][]float64) string {
	top, topMed := "", 0.0
	for p, vs := range pkgs {
		if m := median(vs); m > topMed {
			top, topMed = p, m
		}
	}
	return top
}
