package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A base URL that is a web site, not an API (it answers 404, 405 or 501
// with an HTML page), fails at once, in one line that says so and names
// the URL tried, without the page.
func TestBaseURLNotAnAPI(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented} {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			w.Write([]byte("<!DOCTYPE html><html><body><h1>Error response</h1><p>Error code: " + http.StatusText(status) + "</p></body></html>"))
		}))
		r := runPlyWithEnv(t, t.TempDir(), filepath.Join(t.TempDir(), "home"), map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m",
			"OPENAI_BASE_URL": srv.URL + "/v1", "PLY_RETRY_DELAY_SCALE": "0.001"}, "-p", "hi")
		srv.Close()
		if r.code == 0 || hits.Load() != 1 {
			t.Errorf("%d: exit %d after %d requests; want a failure after one", status, r.code, hits.Load())
		}
		if !strings.Contains(r.stderr, "does not look like an OpenAI-compatible API") || !strings.Contains(r.stderr, srv.URL+"/v1/chat/completions") ||
			strings.Contains(r.stderr, "<html") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%d: stderr %q", status, r.stderr)
		}
	}
}
