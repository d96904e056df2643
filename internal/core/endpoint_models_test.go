package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// TestListErrorSaysWhy: a list the endpoint lacks, a refused key and other
// failures each come out as one line saying so.
func TestListErrorSaysWhy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&llm.APIError{Provider: "openai", Status: 404, Message: "Not Found"}, "this endpoint does not list its models (HTTP 404)"},
		{&llm.APIError{Provider: "openai", Status: 401, Message: "Incorrect API key"}, "the endpoint refused to list its models (HTTP 401): check the API key"},
		{errors.New("openai: sending request: connection refused"), "listing the endpoint's models: openai: sending request: connection refused"},
	} {
		got := listError(tc.err).Error()
		if got != tc.want || strings.Contains(got, "\n") {
			t.Errorf("%v → %q, want %q", tc.err, got, tc.want)
		}
	}
	if !errors.Is(listError(&llm.APIError{Status: 501}), ErrNoModelList) {
		t.Error("a 501 is not ErrNoModelList")
	}
}
