package settings

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Model is the "model" setting. It may be written as a plain name
// ("model": "qwen3-coder-plus") or as an object:
//
//	"model": {"name": "qwen3-coder-plus", "skipLoopDetection": false,
//	          "streamIdleTimeout": "300s", "maxToolCallsPerTurn": 100}
//
// Fields left out keep the value of an earlier file (or the default).
type Model struct {
	Name string `json:"name"`
	// SkipLoopDetection, when set to false, switches on the heuristic
	// loop tier; nil leaves the default.
	SkipLoopDetection *bool `json:"skipLoopDetection"`
	// StreamIdleTimeout is a Go duration ("300s", "2m"): how long a
	// response may send nothing before it counts as stalled.
	StreamIdleTimeout string `json:"streamIdleTimeout"`
	// MaxToolCallsPerTurn caps the tool calls of one user prompt.
	MaxToolCallsPerTurn int `json:"maxToolCallsPerTurn"`
	// MaxResponseBytes caps the size of one streamed response.
	MaxResponseBytes int64 `json:"maxResponseBytes"`
	// Effort is the reasoning tier of every request: low, medium, high,
	// xhigh or max ("" leaves the provider's default).
	Effort string `json:"effort"`
}

// UnmarshalJSON takes either form.
func (m *Model) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*m = Model{}
		return json.Unmarshal(b, &m.Name)
	}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[string]()}
	}
	type plain Model // no UnmarshalJSON: no recursion
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = Model(p)
	return nil
}

// over returns m with the fields o sets laid over it.
func (m Model) over(o Model) Model {
	if o.Name != "" {
		m.Name = o.Name
	}
	if o.SkipLoopDetection != nil {
		m.SkipLoopDetection = o.SkipLoopDetection
	}
	if o.StreamIdleTimeout != "" {
		m.StreamIdleTimeout = o.StreamIdleTimeout
	}
	if o.MaxToolCallsPerTurn != 0 {
		m.MaxToolCallsPerTurn = o.MaxToolCallsPerTurn
	}
	if o.MaxResponseBytes != 0 {
		m.MaxResponseBytes = o.MaxResponseBytes
	}
	if o.Effort != "" {
		m.Effort = o.Effort
	}
	return m
}

// jsonKind names the kind of a JSON value for an error message.
func jsonKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "nothing"
	case b[0] == '[':
		return "array"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	}
	return "number"
}
