package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// goBenchPackages are the packages whose micro-benchmarks the table
// includes, and the benchmarks picked from each.
var goBenchPackages = []string{"./internal/sse", "./internal/provider/openai", "./internal/scheduler"}

const goBenchPattern = "BenchmarkParse|BenchmarkStream|BenchmarkSchedulerOverhead"

// goBenchmarks runs the micro-benchmarks with -count so that each gives
// min / median / max like the other figures, and adds their ns/op, MB/s,
// custom metrics (ns/call) and allocs/op to the table.
func (b *bench) goBenchmarks(module, benchTime string, count int) error {
	args := append([]string{"test", "-run", "^$", "-bench", goBenchPattern, "-benchmem",
		"-benchtime", benchTime, "-count", strconv.Itoa(count)}, goBenchPackages...)
	cmd := exec.CommandContext(b.ctx, "go", args...)
	cmd.Dir = module
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	results := parseGoBench(out.Bytes())
	perCall := map[string]bool{}
	for _, r := range results {
		if r.unit == "ns/call" {
			perCall[r.pkg+" "+r.name] = true
		}
	}
	for _, r := range results {
		if r.unit == "B/op" || r.unit == "ns/op" && perCall[r.pkg+" "+r.name] {
			continue // allocs/op and ns/call say enough; keep the table short
		}
		rw := &row{group: "Go benchmark, " + path.Base(r.pkg), name: r.name + ", " + r.unit, values: r.values}
		switch r.unit {
		case "MB/s":
			rw.unit, rw.higherBetter = unitMBps, true
			if strings.HasSuffix(r.pkg, "/internal/sse") {
				rw.target = 200
			}
		case "ns/op", "ns/call":
			rw.unit = unitDuration
		default:
			rw.unit = unitCount
		}
		b.t.add(rw)
	}
	for _, want := range strings.Split(goBenchPattern, "|") {
		found := false
		for _, r := range results {
			found = found || strings.HasPrefix(r.name, want)
		}
		if !found && err == nil {
			b.t.notef("No Go benchmark matched %s.", want)
		}
	}
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s%s", strings.Join(args, " "), err, tail(out.String()), tail(stderr.String()))
	}
	fmt.Fprint(os.Stderr, stderr.String())
	return nil
}

// goBenchResult is one metric of one benchmark over all its -count runs.
type goBenchResult struct {
	pkg, name, unit string
	values          []float64
}

// gomaxprocsSuffix is the "-2" go test appends to benchmark names.
var gomaxprocsSuffix = regexp.MustCompile(`-\d+$`)

// parseGoBench reads go test -bench output: "pkg:" lines name the package
// of the lines that follow, and each result line is a name, an iteration
// count and value-unit pairs. Results keep the order of first appearance.
func parseGoBench(out []byte) []*goBenchResult {
	var order []*goBenchResult
	byKey := map[string]*goBenchResult{}
	pkg := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := gomaxprocsSuffix.ReplaceAllString(f[0], "")
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			key := pkg + " " + name + " " + f[i+1]
			r := byKey[key]
			if r == nil {
				r = &goBenchResult{pkg: pkg, name: name, unit: f[i+1]}
				byKey[key] = r
				order = append(order, r)
			}
			r.values = append(r.values, v)
		}
	}
	return order
}
