package openai

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

// Requests one after another share one connection: the decoder stops at
// [DONE], before the body's end, and the connection must still go back
// to the pool (against a real provider a new one costs handshakes).
func TestRoundsShareOneConnection(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")}, fp.Turn{fp.Text("three")})
	hc := transport.NewHTTPClient(5 * time.Second)
	defer hc.CloseIdleConnections()
	tr := hc.Transport.(*http.Transport)
	var dials atomic.Int32
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return dial(ctx, network, addr)
	}
	c := New(Config{BaseURL: srv.URL, APIKey: "k", Model: "m", HTTPClient: hc})
	for i := 0; i < 3; i++ {
		req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}
		for _, err := range c.Stream(context.Background(), req) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("three requests dialed %d connections, want 1", n)
	}
}
