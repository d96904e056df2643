package headless

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// TestAssistantMessagesCarryUsageAndStopReason: the messages of one reply
// (one block kind each, as Qwen Code prints them) share the reply's id and
// usage, and the last says why the reply stopped.
func TestAssistantMessagesCarryUsageAndStopReason(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		calls  []*turn.ToolCallRequest
		reason llm.FinishReason
		stops  []any
	}{
		{"text then tool", "Reading it.", []*turn.ToolCallRequest{{CallID: "c1", Name: "read_file", Args: `{"file_path":"a"}`}}, llm.FinishToolCalls, []any{nil, "tool_use"}},
		{"text only", "Done.", nil, llm.FinishStop, []any{"end_turn"}},
		{"cut", "Half", nil, llm.FinishMaxTokens, []any{"max_tokens"}},
	} {
		var out bytes.Buffer
		p := newPrinter(Config{Format: FormatStreamJSON, Stdout: &out, SessionID: "s", Model: "m"})
		p.assistant("", "", tc.text, tc.calls, &turn.Finished{Reason: tc.reason, Usage: &llm.Usage{InputTokens: 100, OutputTokens: 7, TotalTokens: 107}})
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != len(tc.stops) {
			t.Fatalf("%s: %d messages, want %d:\n%s", tc.name, len(lines), len(tc.stops), out.String())
		}
		ids := map[string]bool{}
		for i, l := range lines {
			var m struct {
				Message struct {
					ID         string `json:"id"`
					StopReason any    `json:"stop_reason"`
					Usage      struct {
						In  int `json:"input_tokens"`
						Out int `json:"output_tokens"`
					} `json:"usage"`
				} `json:"message"`
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			ids[m.Message.ID] = true
			if m.Message.Usage.In != 100 || m.Message.Usage.Out != 7 {
				t.Errorf("%s: message %d has usage %+v, want the reply's", tc.name, i, m.Message.Usage)
			}
			if m.Message.StopReason != tc.stops[i] {
				t.Errorf("%s: message %d stop_reason %v, want %v", tc.name, i, m.Message.StopReason, tc.stops[i])
			}
		}
		if len(ids) != 1 {
			t.Errorf("%s: the reply's messages have %d ids, want one", tc.name, len(ids))
		}
	}
}
