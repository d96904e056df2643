package anthropic

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestListModels: GET {base}/v1/models with the key and version headers,
// page after page as has_more and last_id say.
func TestListModels(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("X-Api-Key") != "k" || r.Header.Get("Anthropic-Version") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("after_id") == "" {
			w.Write([]byte(`{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":true,"first_id":"claude-sonnet-4-5","last_id":"claude-sonnet-4-5"}`))
			return
		}
		w.Write([]byte(`{"data":[{"type":"model","id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5","created_at":"2025-10-01T00:00:00Z"}],"has_more":false,"first_id":"claude-haiku-4-5","last_id":"claude-haiku-4-5"}`))
	}))
	defer srv.Close()
	ids, err := New(Config{BaseURL: srv.URL, APIKey: "k"}).ListModels(context.Background())
	if err != nil || !slices.Equal(ids, []string{"claude-haiku-4-5", "claude-sonnet-4-5"}) {
		t.Fatalf("ids %v, err %v", ids, err)
	}
}
