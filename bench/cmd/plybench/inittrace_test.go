package main

import (
	"math"
	"testing"
)

func TestParseInitTrace(t *testing.T) {
	total, pkgs, bytes := parseInitTrace("ply 1.0\n" +
		"init runtime @1.1 ms, 0.50 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/plyhq/ply/internal/tui @49 ms, 3.0 ms clock, 110696 bytes, 924 allocs\n" +
		"not a line of the trace\n")
	if total != 3.5e6 || pkgs["runtime"] != 0.5e6 || pkgs["github.com/plyhq/ply/internal/tui"] != 3e6 || bytes != 110696 {
		t.Fatalf("parseInitTrace = %v, %v, %v", total, pkgs, bytes)
	}
}

func FuzzParseInitTrace(f *testing.F) {
	f.Add("init runtime @1.1 ms, 0.50 ms clock, 0 bytes, 0 allocs\n")
	f.Add("init x @1 ms, 1e309 ms clock, 99999999999999999999999 bytes, 1 allocs\ninit y @2 ms, 0.1 ms clock, 12 bytes, 1 allocs")
	f.Add("init  @ ms, ms clock, bytes,")
	f.Fuzz(func(t *testing.T, s string) {
		total, pkgs, bytes := parseInitTrace(s)
		if bytes < 0 || total < 0 {
			t.Fatalf("negative sums for %q: %v %v", s, total, bytes)
		}
		sum := 0.0
		for _, v := range pkgs {
			sum += v
		}
		if math.Abs(sum-total) > 1e-9*math.Max(1, total) {
			t.Fatalf("the packages' times add up to %v, the total is %v", sum, total)
		}
	})
}
