package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
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

type bodyRoundTrip struct {
	status int
	body   string
}

func (b bodyRoundTrip) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(b.body)), Request: r}, nil
}

// FuzzListModels: whatever an endpoint answers to GET /models, the list
// is an error or ids that are none of them empty; nothing panics.
func FuzzListModels(f *testing.F) {
	f.Add(200, `{"object":"list","data":[{"id":"gpt-4.1"},{"id":""},{"object":"model"}]}`)
	f.Add(200, `{"data":null}`)
	f.Add(200, `<html>not an API</html>`)
	f.Add(401, `{"error":{"message":"bad key"}}`)
	f.Add(404, ``)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 100 || status > 599 {
			return
		}
		c := New(Config{BaseURL: "http://127.0.0.1:9/v1", HTTPClient: &http.Client{Transport: bodyRoundTrip{status, body}}})
		ids, err := c.ListModels(context.Background())
		if err != nil {
			return
		}
		if slices.Contains(ids, "") {
			t.Fatalf("an empty id in %q", ids)
		}
	})
}
