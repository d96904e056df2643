package providertest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// WantInvalid fails the test unless err is an *llm.InvalidStreamError
// whose reason contains reason.
func WantInvalid(t testing.TB, err error, reason string) {
	t.Helper()
	var ise *llm.InvalidStreamError
	if !errors.As(err, &ise) {
		t.Fatalf("err = %v, want InvalidStreamError", err)
	}
	if !strings.Contains(ise.Reason, reason) {
		t.Fatalf("reason = %q, want it to contain %q", ise.Reason, reason)
	}
}

// DecodeJSON decodes s, failing the test if it is not JSON.
func DecodeJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
	return v
}

// MustJSON encodes v, failing the test if it cannot be.
func MustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Itoa is i as JSON.
func Itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// Quote is s as a JSON string.
func Quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
