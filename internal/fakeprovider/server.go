// Package fakeprovider is a scripted OpenAI-compatible server for ply's
// tests. It speaks the real wire format (SSE over chunked HTTP, one flush
// per event, tool-call arguments in small fragments) so that the whole
// stack, from the HTTP client up, runs as it does against a real provider.
//
// A test scripts one Turn per expected request, in order. The server
// records every request so the test can check what ply sent, answers
// requests beyond the script with a 500 and records that as a failure, and
// can check every recorded history for tool calls without results and
// results without calls (CheckPairing): history corruption is found by
// every test that uses the server, not only by tests written for it.
//
// Faults (ResetBeforeFirstByte, CloseBeforeFirstByte, CutAfterChunks, Status, NotJSONChunk,
// NoFinishReason, Stall, StallBeforeHeaders) are steps like any other, for robustness tests of
// the retry paths.
package fakeprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running fake provider.
type Server struct {
	// URL is the server's root, usable as a base URL: both
	// URL+"/chat/completions" and URL+"/v1/chat/completions" are served.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	turns    []Turn
	served   []bool // which turns answered a request
	pending  int
	first    int
	requests []Request
	failures []string
	keep     func(Request) Request // see Hooks.Keep
	lean     bool                  // see Hooks.Lean
}

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	// Raw is the body as received.
	Raw []byte
	// Body is Raw decoded as a JSON object (nil if it was not one, and
	// under Hooks.Lean).
	Body map[string]any
	// Model and Messages are decoded from Body for convenience.
	Model    string
	Messages []Message
	// Turn is the index of the scripted turn that answered it, or -1.
	Turn int
}

// Message is one entry of a request's "messages".
type Message struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []RecordedCall  `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
}

// RecordedCall is one entry of an assistant message's "tool_calls".
type RecordedCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Text returns the message's text content: the string, or the text parts
// of a content array joined without separator.
func (m *Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// New starts a server answering the given turns, one per request, and
// closes it when the test ends. At the end of the test, every recorded
// failure (unscripted or malformed requests) is reported with t.Errorf.
func New(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s := NewServer(turns...)
	t.Cleanup(func() {
		s.Close()
		for _, f := range s.Failures() {
			t.Errorf("fakeprovider: %s", f)
		}
	})
	return s
}

// NewServer starts a server outside of a test (a benchmark binary, a
// manual run). The caller must Close it and may inspect Failures.
func NewServer(turns ...Turn) *Server {
	s := &Server{turns: turns, pending: len(turns)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down, ending any stream still in progress.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Append scripts further turns, answered after the ones already scripted.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
	s.pending += len(turns)
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending returns how many scripted turns have not been requested yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending
}

// Failures returns what went wrong on the server's side: requests beyond
// the script, bodies that were not JSON, unknown paths.
func (s *Server) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

// CheckPairing checks the history of every recorded request; see
// CheckMessages.
func (s *Server) CheckPairing() error {
	var errs []error
	for i, r := range s.Requests() {
		if err := CheckMessages(r.Messages); err != nil {
			errs = append(errs, fmt.Errorf("request %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// CheckMessages checks a Chat Completions history the way strict servers
// do: every tool call of an assistant message must be answered by a tool
// message among those directly following it, and every tool message must
// answer a call of the assistant message it follows, once.
func CheckMessages(msgs []Message) error {
	var errs []error
	for i := 0; i < len(msgs); i++ {
		m := &msgs[i]
		if m.Role == "tool" {
			errs = append(errs, fmt.Errorf("message %d: tool result for %q does not follow an assistant message with that call", i, m.ToolCallID))
			continue
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		calls := map[string]string{} // id -> name
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				errs = append(errs, fmt.Errorf("message %d: tool call %s has no id", i, c.Function.Name))
				continue
			}
			if _, dup := calls[c.ID]; dup {
				errs = append(errs, fmt.Errorf("message %d: tool call id %q used twice", i, c.ID))
			}
			calls[c.ID] = c.Function.Name
		}
		answered := map[string]bool{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			id := msgs[j].ToolCallID
			_, known := calls[id]
			switch {
			case !known:
				errs = append(errs, fmt.Errorf("message %d: tool result for %q has no matching call", j, id))
			case answered[id]:
				errs = append(errs, fmt.Errorf("message %d: second tool result for %q", j, id))
			}
			answered[id] = true
		}
		for _, c := range m.ToolCalls {
			if c.ID != "" && !answered[c.ID] {
				errs = append(errs, fmt.Errorf("message %d: tool call %q (%s) has no result", i, c.ID, c.Function.Name))
			}
		}
		i = j - 1
	}
	return errors.Join(errs...)
}

func (s *Server) fail(format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.failures = append(s.failures, msg)
	s.mu.Unlock()
	return msg
}

// writeError answers with an OpenAI-shaped error body.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "fakeprovider_error", "code": nil}})
	_, _ = w.Write(b)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw, Turn: -1}
	object := false
	if err == nil {
		if s.lean {
			object = isObject(raw)
		} else {
			_ = json.Unmarshal(raw, &req.Body)
			object = req.Body != nil
		}
		var typed struct {
			Model    string    `json:"model"`
			Messages []Message `json:"messages"`
		}
		if json.Unmarshal(raw, &typed) == nil {
			req.Model, req.Messages = typed.Model, typed.Messages
		}
	}

	s.mu.Lock()
	n := len(s.requests)
	var turn Turn
	ok := false
	if r.Method == http.MethodPost && (r.URL.Path == "/chat/completions" || r.URL.Path == "/v1/chat/completions") && object {
		for len(s.served) < len(s.turns) {
			s.served = append(s.served, false)
		}
		// first is the oldest unanswered turn: scripts without When
		// are answered in order in constant time.
		for s.first < len(s.turns) && s.served[s.first] {
			s.first++
		}
		msgs := newTexts(req.Messages)
		for i := s.first; i < len(s.turns); i++ {
			if !s.served[i] && s.turns[i].matches(msgs) {
				turn, ok = s.turns[i], true
				req.Turn = i
				s.served[i] = true
				s.pending--
				break
			}
		}
	}
	scripted := len(s.turns)
	if s.keep != nil {
		s.requests = append(s.requests, s.keep(req))
	} else {
		s.requests = append(s.requests, req)
	}
	s.mu.Unlock()

	switch {
	case r.URL.Path != "/chat/completions" && r.URL.Path != "/v1/chat/completions":
		writeError(w, http.StatusNotFound, s.fail("request %d: unknown path %s %s", n, r.Method, r.URL.Path))
		return
	case r.Method != http.MethodPost:
		writeError(w, http.StatusMethodNotAllowed, s.fail("request %d: method %s", n, r.Method))
		return
	case err != nil || !object:
		writeError(w, http.StatusBadRequest, s.fail("request %d: body is not a JSON object: %v %.200q", n, err, raw))
		return
	case !ok:
		writeError(w, http.StatusInternalServerError, s.fail("request %d has no scripted turn (%d scripted)", n, scripted))
		return
	}
	s.answer(w, r, turn.render(fmt.Sprintf("chatcmpl-fake-%d", n), req.Model))
}

// answer sends a rendered turn.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, p plan) {
	if p.silence > 0 && !pause(r, p.silence) {
		return
	}
	if p.status != nil {
		for k, v := range p.status.header {
			w.Header()[k] = v
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(p.status.n)
		_, _ = io.WriteString(w, p.status.text)
		return
	}
	if p.reset || p.close {
		hijackAndClose(w, p.reset)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	sent := 0
	for _, ev := range p.events {
		if p.cut >= 0 && sent >= p.cut {
			break
		}
		if ev.pause > 0 {
			if !pause(r, ev.pause) {
				return
			}
			continue
		}
		if _, err := io.WriteString(w, "data: "+ev.data+"\n\n"); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		sent++
	}
	if p.cut >= 0 {
		hijackAndClose(w, false)
		return
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

// pause waits d, or until the client goes away; it reports whether the
// wait ran its course.
func pause(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// hijackAndClose drops the connection under the response. With reset, the
// close sends a TCP RST instead of a FIN.
func hijackAndClose(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return // HTTP/2 or a recorder: nothing to drop
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
