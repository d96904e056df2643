package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// The differential test runs command lines with real bash (see
// bashOracle) and compares the simple commands bash actually ran with
// what the classifier says the line runs. Every command bash ran must be
// one ply reports (SimpleCommands), or the line must be opaque; a line
// IsReadOnly accepts must run only known read-only programs. A line that
// differs is a hole: a deny rule does not see the command, an allow rule
// or auto-approval lets it run.

// bashDiffCorpus is where every line that ever differed is kept.
const bashDiffCorpus = "testdata/bashdiff"

// plyDisagrees returns how what ply says of line differs from what bash
// ran for it, or "" when ply sees every command bash ran or fails closed.
func plyDisagrees(line string, ran [][]string) string {
	ro := IsReadOnly(line)
	if reason, opaque := Opaque(line); opaque {
		if ro {
			return fmt.Sprintf("opaque (%s) but read-only", reason)
		}
		return ""
	}
	view, exact := plyView(line)
	for _, argv := range ran {
		if !sees(view, exact, argv) {
			return fmt.Sprintf("bash ran %q, which ply does not report (ply: %q)", argv, view)
		}
		if ro && commands[argv[0]] == nil {
			return fmt.Sprintf("read-only, but bash ran %q", argv)
		}
	}
	return ""
}

// plyView returns the word lists ply reports for line: whole simple
// commands when SimpleCommands answers, else (words known only at run
// time) the literal program names the parser found, and exact false.
func plyView(line string) (view [][]string, exact bool) {
	if scs, err := SimpleCommands(line); err == nil {
		for _, sc := range scs {
			view = append(view, sc.Args)
		}
		return view, true
	}
	f, err := parse(line)
	if err != nil {
		return nil, false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if w := analyze(c.Args[0]); w.exact {
				view = append(view, []string{w.text})
			}
		}
		return true
	})
	return view, false
}

// sees reports whether argv is among the word lists of view. Without
// exact words, or where ply's words hold a glob bash may have expanded,
// the program name must match.
func sees(view [][]string, exact bool, argv []string) bool {
	for _, ws := range view {
		// Names are compared as written: bash reports the name typed,
		// and the oracle runs no line that holds a slash.
		if len(ws) == 0 || ws[0] != argv[0] {
			continue
		}
		if !exact || slices.Equal(ws[1:], argv[1:]) {
			return true
		}
		if slices.ContainsFunc(ws[1:], func(w string) bool { return strings.ContainsAny(w, "*?[") }) {
			return true
		}
	}
	return false
}

// loadBashDiffCorpus returns every kept line by file name; a file holds
// one line, byte for byte.
func loadBashDiffCorpus(t testing.TB) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(bashDiffCorpus, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(name)] = string(data)
	}
	return out
}

// TestBashDiffCorpusFailsClosed replays every line that ever differed
// from bash without bash: each must now be opaque, with a reason, and not
// read-only.
func TestBashDiffCorpusFailsClosed(t *testing.T) {
	corpus := loadBashDiffCorpus(t)
	if len(corpus) == 0 {
		t.Fatalf("no corpus in %s", bashDiffCorpus)
	}
	for name, line := range corpus {
		reason, opaque := Opaque(line)
		if !opaque || reason == "" || IsReadOnly(line) {
			t.Errorf("%s: %q: Opaque = %q, %v; IsReadOnly = %v; want opaque and not read-only",
				name, line, reason, opaque, IsReadOnly(line))
		}
	}
}

// diffStats counts a differential run.
type diffStats struct {
	mu                                  sync.Mutex
	tried, opaque, refused, ran, failed int
	findings                            []finding
	errs                                []error // the first lines that failed to run
}

// finding is a line on which bash and ply differ, and how.
type finding struct {
	input
	how string
}

func (s *diffStats) record(in input, err error, how string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tried++
	switch {
	case errors.Is(err, errRefused):
		s.refused++
	case err != nil:
		s.failed++
		if len(s.errs) < 5 {
			s.errs = append(s.errs, err)
		}
	default:
		s.ran++
	}
	if how != "" {
		s.findings = append(s.findings, finding{in, how})
	}
}

func (s *diffStats) recordOpaque(in input, readOnly bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tried++
	s.opaque++
	if readOnly {
		s.findings = append(s.findings, finding{in, "opaque but read-only"})
	}
}

// input is a line to compare and where it came from.
type input struct{ line, origin string }

// bashDiffInputs returns n lines for seed: two generated for each
// mutation of a corpus or seed line.
func bashDiffInputs(seed uint64, n int, corpus []string) []input {
	g := newLineGen(seed)
	out := make([]input, 0, n)
	for i := 0; i < n; i++ {
		if i%3 == 2 && len(corpus) > 0 {
			out = append(out, input{g.mutate(corpus[g.r.IntN(len(corpus))]), fmt.Sprintf("mutation %d", i)})
			continue
		}
		out = append(out, input{g.line(), fmt.Sprintf("generated %d", i)})
	}
	return out
}

// bashDiffSeeds are ordinary lines the mutations start from, next to the
// corpus.
var bashDiffSeeds = []string{
	"cat <<EOF\nhello\nEOF\nls", "cat <<'EOF'\n$(rm x)\nEOF", "grep -n x <<-EOF\n\ta\n\tEOF\nwc",
	"ls \\\n-la", "cat 'a b' \"c d\" e\\ f", "sort <<<x | uniq", "head $(ls) `wc`",
	"case x in a) rm;; *) ls;; esac", "for v in a b; do cat $v; done", "f() { rm x; }; f",
}

func envInt(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// TestBashDifferential runs the corpus and generated lines through bash
// and the classifier. PLY_BASHDIFF_N sets how many lines are generated
// (300 by default), PLY_BASHDIFF_SEED the seed; PLY_BASHDIFF_SAVE names a
// directory that receives every differing line as a file, and
// PLY_BASHDIFF_UNCHECKED=1 leaves out the check that makes the lines
// bash reads differently fail closed.
func TestBashDifferential(t *testing.T) {
	o, err := newBashOracle(t.TempDir())
	if err != nil {
		t.Skipf("no bash to compare with: %v", err)
	}
	if !o.confined {
		t.Logf("the sandbox is not available: lines that could reach outside the test's directory are not run")
	}
	t.Logf("bash runs confined by the sandbox: %v", o.confined)
	if os.Getenv("PLY_BASHDIFF_UNCHECKED") != "" {
		// Shows what the test finds against the parser alone, to check
		// that it still finds the constructs the check catches.
		bashAgreementUnchecked.Store(true)
		t.Cleanup(func() { bashAgreementUnchecked.Store(false) })
	}
	corpus := loadBashDiffCorpus(t)
	kept := append(slices.Sorted(mapValues(corpus)), bashDiffSeeds...)
	var inputs []input
	for _, l := range kept {
		inputs = append(inputs, input{l, "corpus"})
	}
	seed := uint64(envInt(t, "PLY_BASHDIFF_SEED", 4))
	n := envInt(t, "PLY_BASHDIFF_N", 300)
	inputs = append(inputs, bashDiffInputs(seed, n, kept)...)

	var stats diffStats
	work := make(chan input)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for in := range work {
				if _, opaque := Opaque(in.line); opaque {
					// Fails closed whatever bash runs: no need to ask.
					stats.recordOpaque(in, IsReadOnly(in.line))
					continue
				}
				ran, err := o.run(t.Context(), in.line)
				how := ""
				if err == nil {
					how = plyDisagrees(in.line, ran)
				}
				stats.record(in, err, how)
			}
		})
	}
	for _, in := range inputs {
		work <- in
	}
	close(work)
	wg.Wait()
	t.Logf("seed %d: %d lines tried, %d opaque (not run), %d ran, %d refused, %d failed to run, %d differ",
		seed, stats.tried, stats.opaque, stats.ran, stats.refused, stats.failed, len(stats.findings))
	for _, err := range stats.errs {
		t.Logf("failed to run: %v", err)
	}
	if stats.failed > stats.ran/10 {
		t.Errorf("%d of %d lines failed to run in bash", stats.failed, stats.tried)
	}
	saveFindings(t, stats.findings)
	for _, f := range stats.findings {
		t.Errorf("bash and ply differ on %q (%s): %s", f.line, f.origin, f.how)
	}
}

func mapValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// saveFindings writes each differing line to PLY_BASHDIFF_SAVE, when set.
func saveFindings(t *testing.T, findings []finding) {
	dir := os.Getenv("PLY_BASHDIFF_SAVE")
	if dir == "" || len(findings) == 0 {
		return
	}
	for i, f := range findings {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("found-%03d.txt", i)), []byte(f.line), 0o644); err != nil {
			t.Errorf("saving a finding: %v", err)
		}
	}
}

// maxFuzzLine bounds the fuzzed lines: the parser recurses on nesting,
// and a line much longer than a command gains nothing for bash.
const maxFuzzLine = 1 << 14

// FuzzBashDifferential checks the classifier against bash on fuzzed
// lines where bash exists, and everywhere that an opaque line is never
// read-only.
func FuzzBashDifferential(f *testing.F) {
	corpus := loadBashDiffCorpus(f)
	for _, l := range corpus {
		f.Add(l)
	}
	for _, l := range bashDiffSeeds {
		f.Add(l)
	}
	o, err := newBashOracle(f.TempDir())
	if err != nil {
		f.Logf("no bash to compare with, checking invariants only: %v", err)
		o = nil
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > maxFuzzLine {
			t.Skip("longer than a command line worth comparing")
		}
		_, opaque := Opaque(line)
		if opaque && IsReadOnly(line) {
			t.Fatalf("%q is opaque and read-only", line)
		}
		if opaque || o == nil {
			return // fails closed whatever bash runs
		}
		ran, err := o.run(context.Background(), line)
		if err != nil {
			return // refused, or ran too long: nothing to compare
		}
		if d := plyDisagrees(line, ran); d != "" {
			t.Fatalf("bash and ply differ on %q: %s", line, d)
		}
	})
}

// TestBashOracle checks the oracle itself, so that the differential
// test cannot pass by observing nothing: it records every program with
// its arguments byte for byte, and on the here-document line it sees
// the command the parser alone misses.
func TestBashOracle(t *testing.T) {
	o, err := newBashOracle(t.TempDir())
	if err != nil {
		t.Skipf("no bash to compare with: %v", err)
	}
	ran, err := o.run(t.Context(), "cat 'a b' $'x\\ny,z:1' && rm -rf y | ls\nhead ''")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"cat", "a b", "x\ny,z:1"}, {"rm", "-rf", "y"}, {"ls"}, {"head", ""}}
	slices.SortFunc(ran, func(a, b []string) int { return slices.Compare(a, b) })
	slices.SortFunc(want, func(a, b []string) int { return slices.Compare(a, b) })
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("ran %q, want %q", ran, want)
	}

	line := "cat <<EOF\nEO\\\nF\nrm -rf x\nEOF\n"
	ran, err = o.run(t.Context(), line)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ran, func(a []string) bool { return slices.Equal(a, []string{"rm", "-rf", "x"}) }) {
		t.Fatalf("bash ran %q for %q, want rm -rf x among them", ran, line)
	}
	if d := plyDisagrees(line, ran); d != "" {
		t.Errorf("with the check: %s", d)
	}
	bashAgreementUnchecked.Store(true)
	defer bashAgreementUnchecked.Store(false)
	if plyDisagrees(line, ran) == "" {
		t.Errorf("without the check, ply and bash agree on %q: the comparison cannot fail", line)
	}
}
