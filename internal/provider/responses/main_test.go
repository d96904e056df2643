package responses

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/llm"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recordedDir finds shared/fixtures/recorded beside the repository: the
// directory holding go.mod, then ../shared.
func recordedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("go.mod not found above the test directory")
		}
		dir = parent
	}
	rec := filepath.Join(dir, "..", "shared", "fixtures", "recorded")
	if _, err := os.Stat(rec); err != nil {
		t.Skipf("recorded fixtures not available at %s: %v", rec, err)
	}
	return rec
}

// loadChunks frames a .chunks.txt fixture as OpenAI sends Responses
// events: an "event:" line named after the chunk's type, then the data
// line.
func loadChunks(t testing.TB, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(recordedDir(t), name))
	if err != nil {
		t.Skipf("fixture %s not available: %v", name, err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b.WriteString("event: " + head.Type + "\ndata: " + line + "\n\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// reply is one scripted HTTP answer.
type reply struct {
	status  int
	header  map[string]string
	body    string
	piece   int // when > 0, write the body in pieces of this size, flushing each
	handler http.HandlerFunc
}

// server answers each request with the next reply and records requests.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	bodies  []map[string]any
	raw     [][]byte
	headers []http.Header
}

func newServer(t testing.TB, replies ...reply) *server {
	s := &server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	_ = json.NewDecoder(r.Body).Decode(&raw)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.raw = append(s.raw, raw)
	s.headers = append(s.headers, r.Header.Clone())
	s.mu.Unlock()
	if r.URL.Path != "/v1/responses" || r.Method != http.MethodPost {
		http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusTeapot)
		return
	}
	if n >= len(s.replies) {
		http.Error(w, "no more replies", http.StatusInternalServerError)
		return
	}
	rp := s.replies[n]
	if rp.handler != nil {
		rp.handler(w, r)
		return
	}
	ct := "text/event-stream; charset=utf-8"
	if rp.status >= 300 {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	if rp.status != 0 {
		w.WriteHeader(rp.status)
	}
	if rp.piece <= 0 {
		_, _ = w.Write([]byte(rp.body))
		return
	}
	for b := rp.body; len(b) > 0; {
		n := min(rp.piece, len(b))
		if _, err := w.Write([]byte(b[:n])); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		b = b[n:]
	}
}

func (s *server) body(t testing.TB, i int) map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.bodies) {
		t.Fatalf("request %d was not made (%d made)", i, len(s.bodies))
	}
	return s.bodies[i]
}

func (s *server) client(cfg Config) *Client {
	cfg.BaseURL = s.URL + "/v1/"
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	return New(cfg)
}

// result is everything one stream produced, merged.
type result struct {
	text, thought string
	sigs          []string
	calls         []llm.FunctionCall
	finish        []llm.FinishReason
	usage         *llm.Usage
	chunks        int
	err           error
}

func run(t testing.TB, c *Client, req *llm.Request) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var r result
	for ch, err := range c.Stream(ctx, req) {
		if err != nil {
			if r.err != nil {
				t.Fatalf("second error yielded: %v after %v", err, r.err)
			}
			r.err = err
			continue
		}
		if r.err != nil {
			t.Fatalf("chunk after error: %+v", ch)
		}
		if ch.Empty() {
			t.Errorf("empty chunk yielded")
		}
		r.chunks++
		r.text += ch.Text
		r.thought += ch.Thought
		if ch.ThoughtSignature != "" {
			r.sigs = append(r.sigs, ch.ThoughtSignature)
		}
		r.calls = append(r.calls, ch.Calls...)
		if ch.FinishReason != "" {
			r.finish = append(r.finish, ch.FinishReason)
		}
		if ch.Usage != nil {
			if r.usage != nil {
				t.Errorf("usage yielded twice")
			}
			r.usage = ch.Usage
		}
	}
	return r
}

func simpleRequest() *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}
}

// sseBody frames event data as OpenAI does, naming each event after its
// type.
func sseBody(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

func textDelta(s string) string {
	return `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":` + quote(s) + `}`
}

func completed(usage string) string {
	if usage == "" {
		usage = "null"
	}
	return `{"type":"response.completed","response":{"id":"resp_1","status":"completed","error":null,"incomplete_details":null,"usage":` + usage + `}}`
}

// stopBody is a complete, minimal text answer.
var stopBody = sseBody(textDelta("ok"), completed(`{"input_tokens":3,"output_tokens":1,"total_tokens":4}`))

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func wantInvalid(t testing.TB, err error, reason string) {
	t.Helper()
	var ise *llm.InvalidStreamError
	if !errors.As(err, &ise) {
		t.Fatalf("err = %v, want InvalidStreamError", err)
	}
	if !strings.Contains(ise.Reason, reason) {
		t.Fatalf("reason = %q, want it to contain %q", ise.Reason, reason)
	}
}

func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
	return v
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
