package anthropic

import (
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// The request's effort is a thinking budget below max_tokens: with no
// cap asked for, max_tokens rises above the tier's budget; with one, the
// budget fits in it.
func TestRequestEffort(t *testing.T) {
	temp := 0.5
	s := newServer(t, reply{Body: stopBody}, reply{Body: stopBody}, reply{Body: stopBody}, reply{Body: stopBody})
	req := &llm.Request{Temperature: &temp, Effort: llm.EffortHigh, Messages: simpleRequest().Messages}
	if r := run(t, s.client(Config{Model: "m1"}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	if want := decodeJSON(t, `{"type":"enabled","budget_tokens":16384}`); !reflect.DeepEqual(got["thinking"], want) {
		t.Errorf("thinking = %v", got["thinking"])
	}
	if _, ok := got["temperature"]; ok || got["max_tokens"] != float64(16384+DefaultMaxTokens) {
		t.Errorf("temperature %v max_tokens %v", got["temperature"], got["max_tokens"])
	}

	req.MaxOutputTokens = 10000
	req.Effort = llm.EffortMedium
	if r := run(t, s.client(Config{Model: "m1", ThinkingBudget: 20000}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got = s.Body(t, 1)
	if want := decodeJSON(t, `{"type":"enabled","budget_tokens":5000}`); !reflect.DeepEqual(got["thinking"], want) {
		t.Errorf("thinking = %v", got["thinking"])
	}
	if got["max_tokens"] != 10000.0 {
		t.Errorf("max_tokens %v", got["max_tokens"])
	}

	// No room for thinking under the cap: none is asked for.
	req.MaxOutputTokens = 1500
	if r := run(t, s.client(Config{Model: "m1"}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := s.Body(t, 2); got["thinking"] != nil || got["temperature"] != 0.5 {
		t.Errorf("thinking %v temperature %v", got["thinking"], got["temperature"])
	}

	// No effort: the configured budget, as before.
	req.Effort, req.MaxOutputTokens = "", 0
	if r := run(t, s.client(Config{Model: "m1", ThinkingBudget: 3000}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	if want := decodeJSON(t, `{"type":"enabled","budget_tokens":3000}`); !reflect.DeepEqual(s.Body(t, 3)["thinking"], want) {
		t.Errorf("thinking = %v", s.Body(t, 3)["thinking"])
	}
}
