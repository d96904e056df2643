package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// Both agents' scripts are the same session: 20 rounds, one call in each
// tool round, the same kind of tool in the same place.
func TestS4ScriptsAreTheSameSession(t *testing.T) {
	ply, crush := s4Rounds(plyTools), s4Rounds(crushTools)
	if len(ply) != 20 || len(crush) != 20 {
		t.Fatalf("rounds: ply %d, crush %d, want 20", len(ply), len(crush))
	}
	for i, o := range s4Ops() {
		if len(ply[i].calls) != 1 || len(crush[i].calls) != 1 {
			t.Fatalf("round %d: %d and %d calls, want one each", i+1, len(ply[i].calls), len(crush[i].calls))
		}
		if o.kind == "edit" && (ply[i].calls[0].args["old_string"] != crush[i].calls[0].args["old_string"]) {
			t.Errorf("round %d: the edits differ", i+1)
		}
	}
	if ply[19].text != s4Answer || crush[19].text != s4Answer {
		t.Errorf("last rounds = %q, %q, want the answer", ply[19].text, crush[19].text)
	}
}

// s4LastRequest is the last request of a session whose tool results are
// results[i] for round i.
func s4LastRequest(t *testing.T, results []string) []fp.Request {
	t.Helper()
	var msgs []map[string]any
	for i, r := range results {
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": fmt.Sprintf("call_%d_0", i), "content": r})
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var m []fp.Message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return []fp.Request{{Messages: m}}
}

func TestCheckS4(t *testing.T) {
	good := make([]string, len(s4Ops()))
	for i, o := range s4Ops() {
		good[i] = "result: " + o.want
	}
	ws := t.TempDir()
	if err := makeWorkspace(ws); err != nil {
		t.Fatal(err)
	}
	edit := func() {
		for _, o := range s4Ops() {
			if o.kind != "edit" {
				continue
			}
			p := filepath.Join(ws, filepath.FromSlash(o.path))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), o.old, o.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	if err := checkS4(ws, s4Answer+"\n", s4LastRequest(t, good)); err == nil || !strings.Contains(err.Error(), "was not edited") {
		t.Errorf("unedited workspace: err = %v, want edits missing", err)
	}
	edit()
	if err := checkS4(ws, s4Answer+"\n", s4LastRequest(t, good)); err != nil {
		t.Errorf("a complete session: %v", err)
	}
	if err := checkS4(ws, "something else\n", s4LastRequest(t, good)); err == nil {
		t.Error("a wrong answer passed")
	}
	bad := append([]string(nil), good...)
	bad[2] = "Error: no such pattern " + s4Ops()[2].want
	if err := checkS4(ws, s4Answer, s4LastRequest(t, bad)); err == nil || !strings.Contains(err.Error(), "round 3") {
		t.Errorf("a failed tool: err = %v, want round 3 reported", err)
	}
	if err := checkS4(ws, s4Answer, s4LastRequest(t, good[:18])); err == nil || !strings.Contains(err.Error(), "round 19") {
		t.Errorf("a missing result: err = %v, want round 19 reported", err)
	}
	bad = append([]string(nil), good...)
	bad[10] = "nothing"
	if err := checkS4(ws, s4Answer, s4LastRequest(t, bad)); err == nil || !strings.Contains(err.Error(), "round 11") {
		t.Errorf("a result without what it should hold: err = %v, want round 11 reported", err)
	}
}

// Without crush the scenario is skipped with a note saying how to get it,
// and succeeds.
func TestS4SkippedWithoutCrush(t *testing.T) {
	t.Setenv("PLY_BENCH_CRUSH", filepath.Join(t.TempDir(), "no-such-crush"))
	b := &bench{n: 1}
	if err := b.s4Scenario(); err != nil {
		t.Fatal(err)
	}
	if len(b.t.rows) != 0 || len(b.t.notes) != 1 || !strings.Contains(b.t.notes[0], "PLY_BENCH_CRUSH") {
		t.Errorf("rows %d, notes %q: want no rows and one note on installing crush", len(b.t.rows), b.t.notes)
	}
}

// The S4 target is a bound the ratio may reach: 0.45x is met.
func TestInclusiveTarget(t *testing.T) {
	r := &row{unit: unitRatio, target: 0.45, inclusive: true, values: []float64{0.45}}
	if r.verdict() != "met" || r.targetText() != "≤ 0.45x" {
		t.Errorf("verdict %q, target %q; want met at ≤ 0.45x", r.verdict(), r.targetText())
	}
	r.inclusive = false
	if r.verdict() == "met" || r.targetText() != "< 0.45x" {
		t.Errorf("strict: verdict %q, target %q; want missed at < 0.45x", r.verdict(), r.targetText())
	}
}
