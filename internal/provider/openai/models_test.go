package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// TestListModels: GET {base}/models with the key, the list format OpenAI
// and compatible servers answer; a refused key is the provider's error.
func TestListModels(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"gpt-4.1-mini","object":"model","created":1,"owned_by":"system"},{"id":"gpt-4.1","object":"model","created":1,"owned_by":"system"}]}`))
	}))
	defer srv.Close()
	ids, err := New(Config{BaseURL: srv.URL + "/v1/", APIKey: "good"}).ListModels(context.Background())
	if err != nil || !slices.Equal(ids, []string{"gpt-4.1", "gpt-4.1-mini"}) {
		t.Fatalf("ids %v, err %v", ids, err)
	}
	_, err = New(Config{BaseURL: srv.URL + "/v1", APIKey: "bad"}).ListModels(context.Background())
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		t.Fatalf("err %v, want the 401", err)
	}
}
