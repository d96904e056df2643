package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget is what one of ply's own packages may allocate while it is
// initialised, and ownInitBudget what all of them may: every process pays
// for it before main runs, whatever it goes on to do (`ply --version`, a
// headless run that never draws the TUI, the sandbox's helper), and on a
// small virtual machine each page of fresh memory costs a fault. Tables
// and regular expressions a package needs only for some runs are built on
// first use instead (sync.OnceValue).
const (
	initBudgetBytes     = 16 << 10
	initBudgetAllocs    = 96
	ownInitBudgetBytes  = 64 << 10
	ownInitBudgetAllocs = 400
)

// TestOwnPackagesInitialiseLittle reads the runtime's trace of package
// initialisers (GODEBUG=inittrace=1), whose allocation figures do not
// depend on the machine's speed, and fails for each of ply's packages
// that allocates more than its budget before main.
func TestOwnPackagesInitialiseLittle(t *testing.T) {
	bin := buildPly(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ply --version: %v\n%s", err, out)
	}
	inits := parseInitTrace(string(out))
	if len(inits) == 0 {
		t.Fatalf("no init lines in the output of ply --version with GODEBUG=inittrace=1:\n%s", out)
	}
	own, ownBytes, ownAllocs := 0, 0, 0
	for _, in := range inits {
		if !strings.HasPrefix(in.pkg, "github.com/plyhq/ply/") {
			continue
		}
		own++
		ownBytes += in.bytes
		ownAllocs += in.allocs
		if in.bytes > initBudgetBytes || in.allocs > initBudgetAllocs {
			t.Errorf("%s allocates %d bytes in %d allocations while it is initialised; the budget is %d bytes, %d allocations: build its tables on first use",
				in.pkg, in.bytes, in.allocs, initBudgetBytes, initBudgetAllocs)
		}
	}
	if own == 0 {
		t.Fatalf("none of ply's own packages is in the init trace:\n%s", out)
	}
	if ownBytes > ownInitBudgetBytes || ownAllocs > ownInitBudgetAllocs {
		t.Errorf("ply's %d packages allocate %d bytes in %d allocations while they are initialised; the budget is %d bytes, %d allocations",
			own, ownBytes, ownAllocs, ownInitBudgetBytes, ownInitBudgetAllocs)
	}
}

// initLine is one package's line of GODEBUG=inittrace=1:
//
//	init github.com/plyhq/ply/internal/tui @49 ms, 3.1 ms clock, 110696 bytes, 924 allocs
type initLine struct {
	pkg           string
	bytes, allocs int
}

func parseInitTrace(s string) []initLine {
	var out []initLine
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, initLine{pkg: f[1], bytes: b, allocs: a})
	}
	return out
}

func TestParseInitTrace(t *testing.T) {
	got := parseInitTrace("ply 1.0\ninit github.com/plyhq/ply/internal/tui @49 ms, 3.1 ms clock, 110696 bytes, 924 allocs\n" +
		"init runtime @1.1 ms, 0.63 ms clock, 0 bytes, 0 allocs\nnot an init line\n")
	want := []initLine{{"github.com/plyhq/ply/internal/tui", 110696, 924}, {"runtime", 0, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("parseInitTrace = %v, want %v", got, want)
	}
}
