package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

func writeProjectSettings(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".ply"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ply", "settings.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lastResult decodes the result line of a stream-json run.
func lastResult(t *testing.T, stdout string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	return res
}

// "model": {"skipLoopDetection": false} switches the heuristic tier on:
// the same thought three times stops the run; by default it does not.
func TestSkipLoopDetectionFalseSwitchesHeuristicsOn(t *testing.T) {
	thought := fp.Thought(strings.Repeat("I should look at the configuration file once more before answering. ", 3))
	for _, tc := range []struct {
		settings string
		code     int
	}{
		{`{}`, 0},
		{`{"model": {"skipLoopDetection": true}}`, 0},
		{`{"model": {"skipLoopDetection": false}}`, 55},
	} {
		t.Run(tc.settings, func(t *testing.T) {
			dir := t.TempDir()
			writeProjectSettings(t, dir, tc.settings)
			srv := fp.New(t, fp.Turn{thought, fp.Text("answer.")})
			r := runPly(t, dir, srv, "", "--trust-workspace", "-o", "stream-json", "-p", "go")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			if tc.code != 0 {
				if res := lastResult(t, r.stdout); res["subtype"] != "error_loop_detected" {
					t.Fatalf("result %v", res)
				}
			}
		})
	}
}

// model.maxToolCallsPerTurn sets the per-turn cap; reaching it ends a
// headless run as a spent budget (exit 55, error_max_tool_calls).
func TestPerTurnCapFromSettings(t *testing.T) {
	dir := t.TempDir()
	writeProjectSettings(t, dir, `{"model": {"maxToolCallsPerTurn": 3}}`)
	var turns []fp.Turn
	for i := range 4 {
		turns = append(turns, fp.Turn{fp.ToolCall(fmt.Sprintf("c%d", i), "run_shell_command", fmt.Sprintf(`{"command":"echo %d >> ran.txt"}`, i))})
	}
	srv := fp.New(t, turns...)
	r := runPly(t, dir, srv, "", "--trust-workspace", "-y", "-o", "stream-json", "-p", "go")
	if r.code != 55 {
		t.Fatalf("exit %d, want 55; stderr:\n%s", r.code, r.stderr)
	}
	if res := lastResult(t, r.stdout); res["subtype"] != "error_max_tool_calls" || !strings.Contains(res["error"].(string), "3") {
		t.Fatalf("result %v", res)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "ran.txt"))
	if got := strings.Fields(string(b)); len(got) != 3 {
		t.Fatalf("%d calls ran, want 3", len(got))
	}

	writeProjectSettings(t, dir, `{"model": {"maxToolCallsPerTurn": -1}}`)
	if r := runPly(t, dir, nil, "", "--trust-workspace", "-y", "-p", "go"); r.code != 52 {
		t.Fatalf("a negative cap: exit %d, want 52", r.code)
	}
}

// --help shows the exit codes, the ones the README lists.
func TestHelpShowsExitCodes(t *testing.T) {
	r := runPly(t, t.TempDir(), nil, "", "--help")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	for _, want := range []string{"Exit codes:", "55   a budget ran out", "130  cancelled", "53   the session turn limit", "--prune OLDER_THAN"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q:\n%s", want, r.stdout)
		}
	}
}
