package providertest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Reply is one scripted HTTP answer.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
	// Piece, when > 0, writes the body in pieces of this size, flushing
	// each.
	Piece int
	// Handler, when set, answers instead.
	Handler http.HandlerFunc
}

// Endpoint describes the requests a Server accepts and how it answers.
type Endpoint struct {
	// Accept reports whether a request went where it should; a request it
	// refuses is answered 418 with "wrong endpoint" and its method and
	// URL.
	Accept func(*http.Request) bool
	// ContentType is sent with a 2xx reply; error replies are sent as
	// application/json. A reply's Header may override either.
	ContentType string
}

// Server answers each request with the next reply and records requests.
type Server struct {
	*httptest.Server
	ep      Endpoint
	mu      sync.Mutex
	replies []Reply
	bodies  []map[string]any
	raw     [][]byte
	headers []http.Header
	urls    []string
}

// NewServer starts a Server, closed when the test ends.
func NewServer(t testing.TB, ep Endpoint, replies ...Reply) *Server {
	s := &Server{ep: ep, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	_ = json.NewDecoder(r.Body).Decode(&raw)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.raw = append(s.raw, raw)
	s.headers = append(s.headers, r.Header.Clone())
	s.urls = append(s.urls, r.URL.String())
	s.mu.Unlock()
	if !s.ep.Accept(r) {
		http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.String(), http.StatusTeapot)
		return
	}
	if n >= len(s.replies) {
		http.Error(w, "no more replies", http.StatusInternalServerError)
		return
	}
	rp := s.replies[n]
	if rp.Handler != nil {
		rp.Handler(w, r)
		return
	}
	ct := s.ep.ContentType
	if rp.Status >= 300 {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rp.Header {
		w.Header().Set(k, v)
	}
	if rp.Status != 0 {
		w.WriteHeader(rp.Status)
	}
	if rp.Piece <= 0 {
		_, _ = w.Write([]byte(rp.Body))
		return
	}
	for b := rp.Body; len(b) > 0; {
		n := min(rp.Piece, len(b))
		if _, err := w.Write([]byte(b[:n])); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		b = b[n:]
	}
}

// Body returns the JSON body of request i, decoded.
func (s *Server) Body(t testing.TB, i int) map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.bodies) {
		t.Fatalf("request %d was not made (%d made)", i, len(s.bodies))
	}
	return s.bodies[i]
}

// Raw returns the body of request i as it was sent.
func (s *Server) Raw(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw[i]
}

// Header returns the header of request i.
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// RequestURL returns the path and query of request i.
func (s *Server) RequestURL(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.urls[i]
}

// Requests returns how many requests were made.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}
