package providertest

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

// StreamFunc starts a stream of a simple request against the server at
// baseURL (scheme and host, no path), with the given idle timeout (0 for
// the default).
type StreamFunc func(ctx context.Context, baseURL string, idle time.Duration) iter.Seq2[llm.Chunk, error]

// HTTPError is one row of an HTTPErrors table: the reply sent and the
// error it must become.
type HTTPError struct {
	Name   string
	Status int
	Header map[string]string
	Body   string
	Kind   llm.ErrorKind
	Msg    string
	Code   string
	Retry  time.Duration
}

// Row makes an HTTPError from its fields in order, for tables.
func Row(name string, status int, header map[string]string, body string, kind llm.ErrorKind, msg, code string, retry time.Duration) HTTPError {
	return HTTPError{Name: name, Status: status, Header: header, Body: body, Kind: kind, Msg: msg, Code: code, Retry: retry}
}

// HTTPErrors answers a stream with each row's reply and checks that it
// ends in exactly the APIError the row describes, with no chunk before it.
func HTTPErrors(t *testing.T, provider string, ep Endpoint, stream StreamFunc, tests []HTTPError) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			s := NewServer(t, ep, Reply{Status: tt.Status, Header: tt.Header, Body: tt.Body})
			r := Run(t, func(ctx context.Context) iter.Seq2[llm.Chunk, error] { return stream(ctx, s.URL, 0) })
			var ae *llm.APIError
			if !errors.As(r.Err, &ae) {
				t.Fatalf("err = %v, want *llm.APIError", r.Err)
			}
			want := llm.APIError{Provider: provider, Kind: tt.Kind, Status: tt.Status, Code: tt.Code, Message: tt.Msg, RetryAfter: tt.Retry}
			if *ae != want {
				t.Fatalf("got  %+v\nwant %+v", *ae, want)
			}
			if r.Chunks != 0 {
				t.Fatalf("%d chunks yielded before an HTTP error", r.Chunks)
			}
		})
	}
}

// ErrorBodyIsCapped checks that a huge error body becomes a message cut
// to transport.MaxMessage on a character boundary, marked with "…".
func ErrorBodyIsCapped(t *testing.T, ep Endpoint, stream StreamFunc) {
	t.Helper()
	big := strings.Repeat("é", 100<<10) // larger than what is read, and multi-byte
	s := NewServer(t, ep, Reply{Status: 500, Body: big})
	r := Run(t, func(ctx context.Context) iter.Seq2[llm.Chunk, error] { return stream(ctx, s.URL, 0) })
	var ae *llm.APIError
	if !errors.As(r.Err, &ae) {
		t.Fatal(r.Err)
	}
	if len(ae.Message) > transport.MaxMessage+len("…") || !strings.HasSuffix(ae.Message, "…") {
		t.Fatalf("message of %d bytes", len(ae.Message))
	}
	if !strings.HasPrefix(ae.Message, "éé") || strings.ContainsRune(ae.Message, '\uFFFD') {
		t.Fatalf("message cut badly: %q", ae.Message[:10])
	}
}
