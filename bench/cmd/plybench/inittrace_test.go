package main

import "testing"

func TestParseInitTrace(t *testing.T) {
	total, pkgs, bytes := parseInitTrace("ply 1.0\n" +
		"init runtime @1.1 ms, 0.50 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/plyhq/ply/internal/tui @49 ms, 3.0 ms clock, 110696 bytes, 924 allocs\n" +
		"not a line of the trace\n")
	if total != 3.5e6 || pkgs["runtime"] != 0.5e6 || pkgs["github.com/plyhq/ply/internal/tui"] != 3e6 || bytes != 110696 {
		t.Fatalf("parseInitTrace = %v, %v, %v", total, pkgs, bytes)
	}
}
