package headless

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// A session that could not be saved ends the run as an error with its own
// exit code and subtype, and the calls of the unsaved reply do not run.
func TestUnsavedSessionIsAnError(t *testing.T) {
	rec := &recorder{fail: errors.New("session: write s.jsonl: no space left on device")}
	var stdout strings.Builder
	cfg := Config{Format: FormatStreamJSON, Stdout: &stdout, Recorder: rec}
	tools := runnerFunc(func(context.Context, []*turn.ToolCallRequest) ([]Outcome, error) {
		t.Error("a call of the unsaved reply ran")
		return nil, nil
	})
	code := Run(context.Background(), cfg, &script{rounds: [][]turn.Event{twoCalls()}}, tools, []llm.Part{{Text: "go"}})
	if code != exitcode.Unsaved {
		t.Fatalf("exit %d, want %d", code, exitcode.Unsaved)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Subtype != SubtypeUnsaved || !strings.Contains(res.Error, "no space left on device") {
		t.Fatalf("result %+v", res)
	}
}
