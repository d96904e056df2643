package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestMaxBytesCapsTheBody(t *testing.T) {
	body := strings.Repeat("x", 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		max     int64
		tooLong bool
	}{{50, true}, {99, true}, {100, false}, {-1, false}, {0, false}} {
		c := &Client{Provider: "p", MaxBytes: tc.max, StatusError: func(*http.Response) *llm.APIError { return nil }}
		s, err := c.Post(context.Background(), srv.URL, nil, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s.Body)
		s.Close()
		var tl *ResponseTooLargeError
		if tc.tooLong {
			if !errors.As(err, &tl) || tl.Limit != tc.max || int64(len(got)) != tc.max {
				t.Errorf("max %d: read %d bytes, err %v; want %d bytes and a ResponseTooLargeError", tc.max, len(got), err, tc.max)
			}
			if err != nil && !strings.Contains(err.Error(), "maxResponseBytes") {
				t.Errorf("the error should name the setting: %v", err)
			}
			continue
		}
		if err != nil || string(got) != body {
			t.Errorf("max %d: read %d bytes, err %v", tc.max, len(got), err)
		}
	}
}

func TestDefaultHTTPClientHasAConnectTimeout(t *testing.T) {
	tr, ok := DefaultHTTPClient.Transport.(*http.Transport)
	if !ok || tr.TLSHandshakeTimeout != DefaultConnectTimeout || tr.DialContext == nil || tr.Proxy == nil {
		t.Fatalf("default transport %+v", DefaultHTTPClient.Transport)
	}
	if DefaultHTTPClient.Timeout != 0 {
		t.Fatal("an overall timeout would cut long streams")
	}
}

// A body in pieces arrives whole, with its length, and is sent again
// whole when the client must resend it (a 307 redirect).
func TestPostInPieces(t *testing.T) {
	var got []string
	var lengths []int64
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, lengths = append(got, string(b)), append(lengths, r.ContentLength)
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, lengths = append(got, string(b)), append(lengths, r.ContentLength)
		w.Header().Set("Content-Type", "text/event-stream")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{Provider: "p", StatusError: func(*http.Response) *llm.APIError { return &llm.APIError{} }}
	s, err := c.Post(context.Background(), srv.URL+"/old", nil, []byte(`{"a":`), []byte("[1"), nil, []byte(",2]}"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(got) != 2 || got[0] != `{"a":[1,2]}` || got[1] != got[0] || lengths[0] != 11 || lengths[1] != 11 {
		t.Fatalf("bodies %q, lengths %v", got, lengths)
	}
}
