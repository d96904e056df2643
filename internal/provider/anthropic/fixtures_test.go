package anthropic

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

type wantTurn struct {
	text   string
	calls  []llm.FunctionCall
	finish llm.FinishReason
	usage  llm.Usage
}

func replayCassette(t *testing.T, name string, want []wantTurn) {
	c := providertest.LoadCassette(t, name)
	if len(c.Interactions) != len(want) {
		t.Fatalf("%s has %d interactions, test expects %d", name, len(c.Interactions), len(want))
	}
	for _, piece := range providertest.PieceSizes {
		for i, in := range c.Interactions {
			t.Run(fmt.Sprintf("interaction%d/piece%d", i, piece), func(t *testing.T) {
				s := newServer(t, reply{
					Status: in.Response.Code,
					Header: map[string]string{"Content-Type": in.Response.Headers["Content-Type"][0]},
					Body:   in.Response.Body,
					Piece:  piece,
				})
				r := run(t, s.client(Config{}), simpleRequest())
				checkTurn(t, r, want[i])
			})
		}
	}
}

func checkTurn(t *testing.T, r result, w wantTurn) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("error: %v", r.Err)
	}
	if r.Text != w.text {
		t.Errorf("text = %q, want %q", r.Text, w.text)
	}
	if r.Thought != "" || len(r.Sigs) != 0 {
		t.Errorf("thought = %q, signatures %q, want none", r.Thought, r.Sigs)
	}
	if !reflect.DeepEqual(r.Calls, w.calls) {
		t.Errorf("calls = %#v\nwant %#v", r.Calls, w.calls)
	}
	if len(r.Finish) != 1 || r.Finish[0] != w.finish {
		t.Errorf("finish reasons = %v, want [%v]", r.Finish, w.finish)
	}
	if r.Usage == nil || *r.Usage != w.usage {
		t.Errorf("usage = %+v, want %+v", r.Usage, w.usage)
	}
}

func TestRecordedSonnet4Tool(t *testing.T) {
	replayCassette(t, "anthropic-claude-sonnet-4-tool-streaming.yaml", []wantTurn{
		{
			text:   "I'll check the weather in Florence, Italy for you.",
			calls:  []llm.FunctionCall{{ID: "toolu_01TQLWhUiZa4j3esJhrzHpRV", Name: "weather", Args: `{"location": "Florence,Italy"}`}},
			finish: llm.FinishToolCalls,
			usage:  llm.Usage{InputTokens: 394, OutputTokens: 66, TotalTokens: 460},
		},
		{
			text:   "The current weather in Florence, Italy shows a temperature of 40°C (104°F). That's quite hot! Make sure to stay hydrated and seek shade or air conditioning if you're planning to be outdoors.",
			finish: llm.FinishStop,
			usage:  llm.Usage{InputTokens: 475, OutputTokens: 49, TotalTokens: 524},
		},
	})
}

func TestRecordedSonnet4MultiTool(t *testing.T) {
	args := `{"a": 2, "b": 3}`
	replayCassette(t, "anthropic-claude-sonnet-4-multi-tool-streaming.yaml", []wantTurn{
		{
			text: "I'll add and multiply the numbers 2 and 3 for you.",
			calls: []llm.FunctionCall{
				{ID: "toolu_01GrN36ErVgy85ECZ6pbzBL4", Name: "add", Args: args},
				{ID: "toolu_0113xQa4VtccyoXcHaukkzom", Name: "multiply", Args: args},
			},
			finish: llm.FinishToolCalls,
			usage:  llm.Usage{InputTokens: 502, OutputTokens: 137, TotalTokens: 639},
		},
		{
			text:   "The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6",
			finish: llm.FinishStop,
			usage:  llm.Usage{InputTokens: 700, OutputTokens: 31, TotalTokens: 731},
		},
	})
}

// Each call is yielded on its own the moment its block stops, before the
// next block starts and before the finish reason.
func TestRecordedCallsYieldedAtBlockStop(t *testing.T) {
	c := providertest.LoadCassette(t, "anthropic-claude-sonnet-4-multi-tool-streaming.yaml")
	s := newServer(t, reply{Body: c.Interactions[0].Response.Body, Piece: 3})
	var seq []string
	for ch, err := range s.client(Config{}).Stream(t.Context(), simpleRequest()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range ch.Calls {
			seq = append(seq, "call "+call.Name)
		}
		if ch.FinishReason != "" {
			if len(ch.Calls) != 0 {
				t.Errorf("calls yielded with the finish reason: %+v", ch.Calls)
			}
			seq = append(seq, "finish")
		}
	}
	if want := []string{"call add", "call multiply", "finish"}; !reflect.DeepEqual(seq, want) {
		t.Fatalf("sequence %v, want %v", seq, want)
	}
}

func TestRecordedHaikuJSONTool(t *testing.T) {
	body := providertest.LoadTypedEvents(t, "anthropic-haiku-4.5-json-tool.chunks.txt")
	want := wantTurn{
		calls: []llm.FunctionCall{{
			ID: "toolu_01KFbKqPYSuAKujiL6mTfzYA", Name: "json",
			Args: `{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}`,
		}},
		finish: llm.FinishToolCalls,
		usage:  llm.Usage{InputTokens: 849, OutputTokens: 47, TotalTokens: 896},
	}
	for _, piece := range providertest.PieceSizes {
		t.Run(fmt.Sprintf("piece%d", piece), func(t *testing.T) {
			s := newServer(t, reply{Body: body, Piece: piece})
			checkTurn(t, run(t, s.client(Config{}), simpleRequest()), want)
		})
	}
}

// stripCache removes cache_control keys, which the official client that
// recorded the cassettes did not send.
func stripCache(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k != "cache_control" {
				out[k] = stripCache(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stripCache(x)
		}
		return out
	}
	return v
}

// The recorded follow-up requests show what the official SDK sent after
// the tool results; ply's conversion of the same history must agree on
// every field the server interprets.
func TestRequestMatchesRecordedFollowUp(t *testing.T) {
	for name, history := range map[string][]llm.Message{
		"anthropic-claude-sonnet-4-tool-streaming.yaml": {
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "What's the weather in Florence,Italy?"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Text: "I'll check the weather in Florence, Italy for you."},
				{Call: &llm.FunctionCall{ID: "toolu_01TQLWhUiZa4j3esJhrzHpRV", Name: "weather", Args: `{"location": "Florence,Italy"}`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "toolu_01TQLWhUiZa4j3esJhrzHpRV", Name: "weather", Output: "40 C"}},
			}},
		},
		"anthropic-claude-sonnet-4-multi-tool-streaming.yaml": {
			{Role: llm.RoleUser, Parts: []llm.Part{{Text: "Add and multiply the number 2 and 3"}}},
			{Role: llm.RoleModel, Parts: []llm.Part{
				{Text: "I'll add and multiply the numbers 2 and 3 for you."},
				{Call: &llm.FunctionCall{ID: "toolu_01GrN36ErVgy85ECZ6pbzBL4", Name: "add", Args: `{"a": 2, "b": 3}`}},
				{Call: &llm.FunctionCall{ID: "toolu_0113xQa4VtccyoXcHaukkzom", Name: "multiply", Args: `{"a": 2, "b": 3}`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Response: &llm.FunctionResponse{ID: "toolu_01GrN36ErVgy85ECZ6pbzBL4", Name: "add", Output: "5"}},
				{Response: &llm.FunctionResponse{ID: "toolu_0113xQa4VtccyoXcHaukkzom", Name: "multiply", Output: "6"}},
			}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := providertest.LoadCassette(t, name)
			var recorded map[string]any
			if err := json.Unmarshal([]byte(c.Interactions[1].Request.Body), &recorded); err != nil {
				t.Fatal(err)
			}
			var tools []llm.ToolDecl
			for _, rt := range recorded["tools"].([]any) {
				m := rt.(map[string]any)
				tools = append(tools, llm.ToolDecl{
					Name: m["name"].(string), Description: m["description"].(string),
					Parameters: json.RawMessage(mustJSON(t, m["input_schema"])),
				})
			}
			system := recorded["system"].([]any)[0].(map[string]any)["text"].(string)
			s := newServer(t, reply{Body: stopBody})
			req := &llm.Request{Model: "claude-sonnet-4-20250514", System: system, MaxOutputTokens: 4000, Messages: history, Tools: tools}
			if r := run(t, s.client(Config{}), req); r.Err != nil {
				t.Fatal(r.Err)
			}
			got := s.Body(t, 0)
			for _, key := range []string{"model", "max_tokens", "system", "messages", "tools", "stream"} {
				if g := stripCache(got[key]); !reflect.DeepEqual(g, recorded[key]) {
					t.Errorf("%s = %s\nrecorded %s", key, mustJSON(t, g), mustJSON(t, recorded[key]))
				}
			}
		})
	}
}
