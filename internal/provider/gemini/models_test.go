package gemini

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestListModels: GET {base}/v1beta/models with the key header, page after
// page; models that do not generate content (embeddings) are left out and
// the "models/" prefix goes.
func TestListModels(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1beta/models" || r.Header.Get("X-Goog-Api-Key") != "k" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("pageToken") == "" {
			w.Write([]byte(`{"models":[{"name":"models/gemini-2.5-pro","displayName":"Gemini 2.5 Pro","supportedGenerationMethods":["generateContent","countTokens"]},{"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"p2"}`))
			return
		}
		w.Write([]byte(`{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent"]}]}`))
	}))
	defer srv.Close()
	ids, err := New(Config{BaseURL: srv.URL, APIKey: "k"}).ListModels(context.Background())
	if err != nil || !slices.Equal(ids, []string{"gemini-2.5-flash", "gemini-2.5-pro"}) {
		t.Fatalf("ids %v, err %v", ids, err)
	}
}
