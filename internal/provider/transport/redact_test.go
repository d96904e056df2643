package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// An error answer that echoes the credential the request carried reaches
// the provider's status-error function with the credential replaced, so
// that no message built from it (UI, transcript, stream-json) holds it.
func TestErrorBodyHidesTheRequestsCredentials(t *testing.T) {
	for _, h := range []struct{ name, value, secret string }{
		{"Authorization", "Bearer sk-bearer-0123456789", "sk-bearer-0123456789"},
		{"X-Api-Key", "sk-ant-0123456789", "sk-ant-0123456789"},
		{"X-Goog-Api-Key", "AIza0123456789", "AIza0123456789"},
		{"Api-Key", "azure-0123456789", "azure-0123456789"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"bad key ` + r.Header.Get(h.name) + `"}`))
		}))
		var seen string
		c := &Client{Provider: "test", StatusError: func(resp *http.Response) *llm.APIError {
			seen = string(ErrorBody(resp))
			return &llm.APIError{Provider: "test", Status: resp.StatusCode, Message: seen}
		}}
		hdr := http.Header{}
		hdr.Set(h.name, h.value)
		_, err := c.Post(context.Background(), srv.URL, hdr, []byte(`{}`))
		srv.Close()
		var ae *llm.APIError
		if !errors.As(err, &ae) {
			t.Fatalf("%s: err = %v", h.name, err)
		}
		if strings.Contains(seen, h.secret) || !strings.Contains(seen, "bad key") || !strings.Contains(seen, "[redacted]") {
			t.Errorf("%s: the status-error function saw %q", h.name, seen)
		}
	}
}
