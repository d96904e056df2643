package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plyhq/ply/internal/tools"
)

// toolSpeed measures grep_search, glob and read_file in this process on
// the generated tree, and rg and git grep on the same tree in the same
// run, so that the ratios compare like with like (same files, same page
// cache, same machine load).
func (b *bench) toolSpeed(cache string) error {
	treeDir := filepath.Join(cache, "tree")
	t0 := time.Now()
	generated, err := ensureTree(treeDir)
	if err != nil {
		return fmt.Errorf("generating the tree: %w", err)
	}
	info := treeInfo()
	if generated {
		b.t.notef("The tree (%d files, %d searchable) was generated in %s; later runs reuse it.", info.files, info.srcFiles, time.Since(t0).Round(time.Millisecond))
	}
	ws, err := tools.NewWorkspace(treeDir)
	if err != nil {
		return err
	}
	var errs []error
	if _, err := exec.LookPath("git"); err == nil {
		if err := gitInitTree(treeDir); err != nil {
			errs = append(errs, err)
		} else if err := b.snapshotFigure(fmt.Sprintf("%d-file git repository", info.files), treeDir); err != nil {
			errs = append(errs, err)
		}
	}
	grep := tools.NewGrep(ws)
	// Literal first: the target. Then a regular expression that
	// starts with a class, so that an engine finds no literal prefix and
	// must either find the inner literal itself or try every position.
	searches := []struct{ name, pattern string }{
		{"literal", needle},
		{"regexp", "[A-Z]+_NEEDLE_[0-9]+: planted"},
	}
	for _, s := range searches {
		if err := b.grepFigure(grep, treeDir, s.name, s.pattern, info.srcNeedles); err != nil {
			errs = append(errs, err)
		}
	}
	if err := b.globFigure(tools.NewGlob(ws), treeDir, info.goFiles); err != nil {
		errs = append(errs, err)
	}
	if err := b.readManyFigure(ws, treeDir); err != nil {
		errs = append(errs, err)
	}
	if err := b.bigReadFigure(filepath.Join(cache, "big")); err != nil {
		errs = append(errs, err)
	}
	if err := b.checkpointFigures(treeDir); err != nil {
		errs = append(errs, fmt.Errorf("checkpoints: %w", err))
	}
	return errors.Join(errs...)
}

var foundRE = regexp.MustCompile(`^Found (\d+) `)

// runTool executes a tool in-process and returns the count its answer
// starts with ("Found N ...").
func runTool(ctx context.Context, t tools.Tool, args map[string]any) (int, time.Duration, error) {
	raw, _ := json.Marshal(args)
	start := time.Now()
	res, err := t.Execute(ctx, raw, nil)
	d := time.Since(start)
	if err != nil {
		return 0, d, err
	}
	if res.IsError {
		return 0, d, fmt.Errorf("%s: %s", t.Name(), res.Output)
	}
	m := foundRE.FindStringSubmatch(res.Output)
	if m == nil {
		return 0, d, fmt.Errorf("%s answered %.200q", t.Name(), res.Output)
	}
	n, _ := strconv.Atoi(m[1])
	return n, d, nil
}

// external runs a command in dir and returns its output's line count.
func external(ctx context.Context, dir string, name string, args ...string) (int, time.Duration, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var lc lineCounter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &lc, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && stderr.Len() == 0 {
		err = nil // grep's "no match"
	}
	if err != nil {
		return 0, d, fmt.Errorf("%s: %v: %s", name, err, stderr.String())
	}
	return int(lc.n.Load()), d, nil
}

type lineCounter struct{ n atomic.Int64 }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, []byte{'\n'})))
	return len(p), nil
}

// contender is one way of doing a figure's work: ply's tool in-process,
// or an external command.
type contender struct {
	name string
	run  func() (int, time.Duration, error)
	// skip, when set, says why a failing warm-up drops the contender with
	// a note instead of failing the scenario (git built without PCRE).
	skip func(error) string
}

// race runs every contender once to warm the page cache, then toolRuns
// rounds of each in turn, so that a burst of load from elsewhere on a
// shared machine hits all of them rather than one. A run whose count
// differs from want (want < 0: any) fails the figure: a fast wrong answer
// is no answer. It returns each contender's times, nil for one skipped.
// With -profile, the whole race is CPU-profiled: only in-process work
// shows in it, since external commands are other processes.
func (b *bench) race(what string, want int, cs []contender) ([][]float64, error) {
	t0 := time.Now()
	defer func() { progress("%s in %s", what, time.Since(t0).Round(time.Millisecond)) }()
	if b.profileDir != "" {
		stop, err := b.startProfile(what)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	out := make([][]float64, len(cs))
	live := make([]bool, len(cs))
	for i, c := range cs {
		_, _, err := c.run()
		switch {
		case err == nil:
			live[i] = true
		case c.skip != nil && c.skip(err) != "":
			b.t.notef("%s", c.skip(err))
		default:
			return out, fmt.Errorf("%s, %s: %w", what, c.name, err)
		}
	}
	for range b.toolRuns {
		for i, c := range cs {
			if !live[i] {
				continue
			}
			n, d, err := c.run()
			if err == nil && want >= 0 && n != want {
				err = fmt.Errorf("found %d, want %d", n, want)
			}
			if err != nil {
				return out, fmt.Errorf("%s, %s: %w", what, c.name, err)
			}
			out[i] = append(out[i], float64(d))
		}
	}
	return out, nil
}

func (b *bench) startProfile(what string) (stop func(), err error) {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, what)
	f, err := os.Create(filepath.Join(b.profileDir, name+".pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// ratios divides run i of a by run i of b: the runs of one round ran
// back to back, under the same load.
func ratios(a, b []float64) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		out = append(out, a[i]/b[i])
	}
	return out
}

func (b *bench) grepFigure(grep tools.Tool, dir, name, pattern string, want int) error {
	cs := []contender{{name: "ply grep_search (in-process)", run: func() (int, time.Duration, error) {
		return runTool(b.ctx, grep, map[string]any{"pattern": pattern})
	}}}
	// Case-insensitive like grep_search; --no-require-git so that rg
	// honours the .gitignore of a tree that is not a repository.
	rg, rgErr := exec.LookPath("rg")
	if rgErr == nil {
		cs = append(cs, contender{name: "rg -i -n", run: func() (int, time.Duration, error) {
			return external(b.ctx, dir, rg, "-i", "-n", "--no-require-git", "--no-messages", pattern)
		}})
	} else if name == "literal" {
		b.t.notef("rg is not installed: the grep_search / rg ratio is missing (Debian: apt-get install ripgrep).")
	}
	if git, err := exec.LookPath("git"); err == nil {
		// -E for the literal; -P (PCRE) for the regexp, since glibc's
		// case-insensitive ERE engine takes most of a minute on it.
		syntax := "-E"
		if name == "regexp" {
			syntax = "-P"
		}
		cs = append(cs, contender{name: "git grep --no-index -i -n " + syntax,
			run: func() (int, time.Duration, error) {
				return external(b.ctx, dir, git, "grep", "--no-index", "--exclude-standard", "-i", "-n", syntax, pattern)
			},
			skip: func(err error) string {
				if syntax == "-P" && strings.Contains(strings.ToLower(err.Error()), "perl") {
					return "This git has no PCRE support: no git grep figure for the regexp search."
				}
				return ""
			}})
	} else if name == "literal" {
		b.t.notef("git is not installed: no git grep figures.")
	}
	vals, err := b.race("grep "+name, want, cs)
	group := "grep_search, 1 GB tree, " + name
	for i, c := range cs {
		if vals[i] != nil || i == 0 {
			b.t.add(&row{group: group, name: c.name, unit: unitDuration, values: vals[i]})
		}
	}
	if rgErr == nil {
		b.t.add(&row{group: group, name: "ply / rg, run by run", unit: unitRatio, values: ratios(vals[0], vals[1]), target: 1.5})
	}
	return err
}

func (b *bench) globFigure(glob tools.Tool, dir string, want int) error {
	cs := []contender{{name: "ply glob (in-process; stats and sorts by mtime)", run: func() (int, time.Duration, error) {
		return runTool(b.ctx, glob, map[string]any{"pattern": "**/*.go"})
	}}}
	if rg, err := exec.LookPath("rg"); err == nil {
		cs = append(cs, contender{name: "rg --files --iglob '*.go'", run: func() (int, time.Duration, error) {
			return external(b.ctx, dir, rg, "--files", "--no-require-git", "--iglob", "*.go")
		}})
	}
	vals, err := b.race("glob", want, cs)
	for i, c := range cs {
		b.t.add(&row{group: "glob, 1 GB tree, **/*.go", name: c.name, unit: unitDuration, values: vals[i]})
	}
	return err
}

// readManyFigure reads readManyFiles files of the tree one after another
// with read_file, as a model paging through a project does, next to cat of
// the same files.
func (b *bench) readManyFigure(ws *tools.Workspace, dir string) error {
	const readManyFiles = 1000
	var paths []string
	for _, f := range treeLayout() {
		if !f.ignored && len(paths) < readManyFiles {
			paths = append(paths, filepath.Join(dir, filepath.FromSlash(f.rel)))
		}
	}
	rf := tools.NewReadFile(ws)
	cs := []contender{{name: "ply read_file, one after another, in all", run: func() (int, time.Duration, error) {
		start := time.Now()
		for _, p := range paths {
			raw, _ := json.Marshal(map[string]any{"file_path": p})
			res, err := rf.Execute(b.ctx, raw, nil)
			if err == nil && res.IsError {
				err = errors.New(res.Output)
			}
			if err != nil {
				return 0, 0, err
			}
		}
		return len(paths), time.Since(start), nil
	}}}
	if cat, err := exec.LookPath("cat"); err == nil {
		cs = append(cs, contender{name: "cat of the same files, one process", run: func() (int, time.Duration, error) {
			_, d, err := external(b.ctx, dir, cat, paths...)
			return len(paths), d, err
		}})
	}
	vals, err := b.race("read_file many", len(paths), cs)
	group := fmt.Sprintf("read_file, %d files of ~21 KB", len(paths))
	b.t.add(&row{group: group, name: cs[0].name, unit: unitDuration, values: vals[0]})
	per := make([]float64, len(vals[0]))
	for i, v := range vals[0] {
		per[i] = v / float64(len(paths))
	}
	b.t.add(&row{group: group, name: "ply read_file, per file", unit: unitDuration, values: per})
	for i := 1; i < len(cs); i++ {
		b.t.add(&row{group: group, name: cs[i].name, unit: unitDuration, values: vals[i]})
	}
	return err
}

// bigLines is the 100 MB file's line count.
const bigLines = 1_000_000

// ensureBigFile writes dir/big.txt (about 100 MB) unless it is there.
func ensureBigFile(dir string) (string, error) {
	p := filepath.Join(dir, "big.txt")
	if _, err := os.Stat(p); err == nil {
		return p, nil // written under another name and renamed: complete
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(p + ".tmp")
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", 110)
	for i := range bigLines {
		fmt.Fprintf(w, "line %07d %s\n", i, pad[:82+i%21]) // 106 bytes on average
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return p, os.Rename(p+".tmp", p)
}

// bigReadFigure reads windows of the 100 MB file and records time and the
// heap's growth: streaming must keep memory flat whatever the file size.
func (b *bench) bigReadFigure(dir string) error {
	p, err := ensureBigFile(dir)
	if err != nil {
		return err
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		return err
	}
	rf := tools.NewReadFile(ws)
	var errs []error
	for _, off := range []int{0, bigLines / 2, bigLines - 100} {
		group := "read_file, 100 MB file of 1,000,000 lines"
		var times, heaps, allocs []float64
		for i := range b.toolRuns + 1 {
			raw, _ := json.Marshal(map[string]any{"file_path": p, "offset": off, "limit": 100})
			var res tools.Result
			var err error
			d, peak, alloc := heapDuring(func() { res, err = rf.Execute(b.ctx, raw, nil) })
			if err == nil && res.IsError {
				err = errors.New(res.Output)
			}
			if err == nil && !strings.Contains(res.Output, fmt.Sprintf("line %07d ", off)) {
				err = fmt.Errorf("the answer lacks line %d: %.200q", off, res.Output)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("read_file offset %d: %w", off, err))
				break
			}
			if i > 0 { // the first run warms the page cache
				times, heaps, allocs = append(times, float64(d)), append(heaps, peak), append(allocs, alloc)
			}
		}
		b.t.add(&row{group: group, name: fmt.Sprintf("offset %d, limit 100: time", off), unit: unitDuration, values: times})
		b.t.add(&row{group: group, name: fmt.Sprintf("offset %d, limit 100: peak heap growth", off), unit: unitBytes, values: heaps})
		b.t.add(&row{group: group, name: fmt.Sprintf("offset %d, limit 100: allocated", off), unit: unitBytes, values: allocs})
	}
	return errors.Join(errs...)
}

// heapDuring runs f and returns its time, the highest live heap seen
// above the level before it (sampled every 100 µs, so a brief spike can
// be missed, a whole file held in memory cannot), and the bytes it
// allocated in all.
func heapDuring(f func()) (time.Duration, float64, float64) {
	runtime.GC()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(samples)
	base, alloc0 := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	f()
	d := time.Since(start)
	close(stop)
	<-done
	metrics.Read(samples)
	if v := samples[0].Value.Uint64(); v > peak.Load() {
		peak.Store(v)
	}
	return d, float64(peak.Load()) - float64(base), float64(samples[1].Value.Uint64() - alloc0)
}
