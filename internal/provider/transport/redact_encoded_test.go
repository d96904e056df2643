package transport

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// A server that echoes the request's key encoded (base64, basic
// authentication's user:key, percent-encoded, upper case) has it
// replaced too.
func TestErrorBodyHidesEncodedCredentials(t *testing.T) {
	const secret = "sk-ant/0123456789+key"
	for name, echo := range map[string]string{
		"base64":     base64.StdEncoding.EncodeToString([]byte(secret)),
		"basic":      base64.StdEncoding.EncodeToString([]byte("user:" + secret)),
		"url base64": base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"percent":    url.QueryEscape(secret),
		"upper":      strings.ToUpper(secret),
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"bad key ` + echo + `"}`))
		}))
		var seen string
		c := &Client{Provider: "test", StatusError: func(resp *http.Response) *llm.APIError {
			seen = string(ErrorBody(resp))
			return &llm.APIError{Provider: "test", Status: resp.StatusCode, Message: seen}
		}}
		hdr := http.Header{}
		hdr.Set("X-Api-Key", secret)
		c.Post(context.Background(), srv.URL, hdr, []byte(`{}`))
		srv.Close()
		if strings.Contains(seen, echo) || !strings.Contains(seen, "[redacted]") {
			t.Errorf("%s: the status-error function saw %q", name, seen)
		}
	}
}
