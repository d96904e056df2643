package responses

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// The request's effort is reasoning.effort, over the configured one, and
// asks for the encrypted reasoning back as a configured one does.
func TestRequestEffort(t *testing.T) {
	s := newServer(t, reply{Body: stopBody}, reply{Body: stopBody})
	req := simpleRequest()
	req.Effort = llm.EffortMedium
	if r := run(t, s.client(Config{Model: "m1"}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := s.Body(t, 0)
	if want := jsonOf(t, `{"effort":"medium"}`); !reflect.DeepEqual(got["reasoning"], want) {
		t.Errorf("reasoning = %v", got["reasoning"])
	}
	if want := jsonOf(t, `["reasoning.encrypted_content"]`); !reflect.DeepEqual(got["include"], want) {
		t.Errorf("include = %v", got["include"])
	}

	req.Effort = llm.EffortXHigh
	if r := run(t, s.client(Config{Model: "m1", Reasoning: &Reasoning{Effort: "low", Summary: "auto"}}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	if want := jsonOf(t, `{"effort":"high","summary":"auto"}`); !reflect.DeepEqual(s.Body(t, 1)["reasoning"], want) {
		t.Errorf("reasoning = %v", s.Body(t, 1)["reasoning"])
	}
}

func jsonOf(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
	return v
}
