// Package idetest is a fake editor companion extension for tests: an MCP
// server over streamable HTTP on a loopback port that checks the bearer
// token and the Host header as the real extensions do, sends
// ide/contextUpdate and the diff notifications on the session's listening
// stream, and offers the openDiff and closeDiff tools. It writes its
// discovery file where a test says.
//
// It owns nothing of ply's; it must not be imported outside tests.
package idetest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Diff is an openDiff call the companion received.
type Diff struct{ Path, NewContent string }

// Companion is the fake extension's server.
type Companion struct {
	Token string
	Port  int

	ln   net.Listener
	srv  *http.Server
	mu   sync.Mutex
	sess map[string]chan []byte // session id → its listening stream, once opened
	ctx  json.RawMessage        // the latest context params
	// Diffs receives each openDiff call; Closed each closeDiff's path.
	Diffs  chan Diff
	Closed chan string
	// Streams receives a session id each time a listening stream opens.
	Streams chan string
	// Refused counts requests refused for their token or Host header.
	refused int
}

// New starts a companion on 127.0.0.1; it stops with the test.
func New(t testing.TB) *Companion {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	c := &Companion{Token: hex.EncodeToString(b), Port: ln.Addr().(*net.TCPAddr).Port, ln: ln,
		sess: map[string]chan []byte{}, Diffs: make(chan Diff, 16), Closed: make(chan string, 16),
		Streams: make(chan string, 16)}
	c.srv = &http.Server{Handler: http.HandlerFunc(c.serve)}
	go func() { _ = c.srv.Serve(ln) }()
	t.Cleanup(func() { c.Stop() })
	return c
}

// Stop closes the server and every stream.
func (c *Companion) Stop() {
	c.mu.Lock()
	for id, ch := range c.sess {
		if ch != nil {
			close(ch)
		}
		delete(c.sess, id)
	}
	c.mu.Unlock()
	_ = c.srv.Close()
}

// SetToken changes the token the server expects.
func (c *Companion) SetToken(tok string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Token = tok
}

// Refused is how many requests were refused for a missing or wrong token
// or a foreign Host header.
func (c *Companion) Refused() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// Discovery is the content of a discovery file for this companion, in
// the shape the Qwen Code extension writes (its lock file), which also
// holds the Gemini CLI extension's fields.
func (c *Companion) Discovery(workspaces []string, ppid int) []byte {
	b, _ := json.Marshal(map[string]any{
		"port": c.Port, "workspacePath": strings.Join(workspaces, string(os.PathListSeparator)),
		"authToken": c.Token, "ppid": ppid, "ideName": "VS Code",
		"ideInfo": map[string]string{"name": "vscode", "displayName": "VS Code"},
	})
	return b
}

// WriteDiscovery writes the discovery file at path, readable by its owner
// only, as the extensions write it.
func (c *Companion) WriteDiscovery(t testing.TB, path string, workspaces []string, ppid int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, c.Discovery(workspaces, ppid), 0o600); err != nil {
		t.Fatal(err)
	}
}

// SetContext records the editor's context and sends it to every session,
// as ide/contextUpdate; openFiles is the workspaceState's file list.
func (c *Companion) SetContext(openFiles []map[string]any) {
	p, _ := json.Marshal(map[string]any{"workspaceState": map[string]any{"openFiles": openFiles, "isTrusted": true}})
	c.mu.Lock()
	c.ctx = p
	c.mu.Unlock()
	c.Notify("ide/contextUpdate", json.RawMessage(p))
}

// Accept answers path's diff as accepted with content (the user's edits
// included); Reject and Close as the other two answers.
func (c *Companion) Accept(path, content string) {
	c.Notify("ide/diffAccepted", map[string]string{"filePath": path, "content": content})
}
func (c *Companion) Reject(path string) {
	c.Notify("ide/diffRejected", map[string]string{"filePath": path})
}
func (c *Companion) Close(path string) {
	c.Notify("ide/diffClosed", map[string]string{"filePath": path})
}

// Notify sends a notification on every open listening stream.
func (c *Companion) Notify(method string, params any) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.sess {
		if ch != nil {
			ch <- msg
		}
	}
}

func (c *Companion) serve(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	c.mu.Lock()
	token := c.Token
	c.mu.Unlock()
	if (host != fmt.Sprintf("127.0.0.1:%d", c.Port) && host != fmt.Sprintf("localhost:%d", c.Port)) ||
		r.Header.Get("Origin") != "" || r.Header.Get("Authorization") != "Bearer "+token {
		c.mu.Lock()
		c.refused++
		c.mu.Unlock()
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	switch r.Method {
	case http.MethodPost:
		c.post(w, r)
	case http.MethodGet:
		c.listen(w, r)
	case http.MethodDelete:
		c.mu.Lock()
		if ch := c.sess[r.Header.Get("Mcp-Session-Id")]; ch != nil {
			close(ch)
		}
		delete(c.sess, r.Header.Get("Mcp-Session-Id"))
		c.mu.Unlock()
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

var versions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

func (c *Companion) post(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	if req.Method == "initialize" && id == "" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		v := versions[1]
		if slices.Contains(versions, p.ProtocolVersion) {
			v = p.ProtocolVersion
		}
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b)
		c.mu.Lock()
		c.sess[id] = nil
		c.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
		reply(w, req.ID, map[string]any{"protocolVersion": v,
			"capabilities": map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
			"serverInfo":   map[string]any{"name": "fake-companion", "version": "1.0.0"}}, nil)
		return
	}
	c.mu.Lock()
	_, ok := c.sess[id]
	c.mu.Unlock()
	if !ok {
		http.Error(w, "Bad Request: No valid session ID provided", http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	switch req.Method {
	case "ping":
		reply(w, req.ID, map[string]any{}, nil)
	case "tools/list":
		obj := map[string]any{"type": "object"}
		reply(w, req.ID, map[string]any{"tools": []map[string]any{
			{"name": "openDiff", "description": "(IDE Tool) Open a diff view", "inputSchema": obj},
			{"name": "closeDiff", "description": "(IDE Tool) Close a diff view", "inputSchema": obj},
		}}, nil)
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				FilePath   string `json:"filePath"`
				NewContent string `json:"newContent"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		switch p.Name {
		case "openDiff":
			c.Diffs <- Diff{Path: p.Arguments.FilePath, NewContent: p.Arguments.NewContent}
			reply(w, req.ID, map[string]any{"content": []any{}}, nil)
		case "closeDiff":
			c.Closed <- p.Arguments.FilePath
			reply(w, req.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"content":null}`}}}, nil)
		default:
			reply(w, req.ID, nil, map[string]any{"code": -32602, "message": "Tool " + p.Name + " not found"})
		}
	default:
		reply(w, req.ID, nil, map[string]any{"code": -32601, "message": "Method not found"})
	}
}

// reply answers a request as the real extension's transport does: one
// server-sent event holding the response.
func reply(w http.ResponseWriter, id json.RawMessage, result any, rpcErr any) {
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if rpcErr != nil {
		m["error"] = rpcErr
	} else {
		m["result"] = result
	}
	b, _ := json.Marshal(m)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
}

// listen serves a session's listening stream: the current context first,
// as the extension sends it when the stream opens, then every
// notification.
func (c *Companion) listen(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, "Not Acceptable", http.StatusNotAcceptable)
		return
	}
	ch := make(chan []byte, 64)
	c.mu.Lock()
	old, ok := c.sess[id]
	if !ok || old != nil {
		c.mu.Unlock()
		http.Error(w, "Invalid or missing session ID", http.StatusBadRequest)
		return
	}
	c.sess[id] = ch
	first := c.ctx
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	if first != nil {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "ide/contextUpdate", "params": first})
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
		fl.Flush()
	}
	// A keep-alive as the extension sends it: a ping without an id.
	fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\n")
	fl.Flush()
	c.Streams <- id
	for {
		select {
		case msg, ok := <-ch:
			if !ok {
				return
			}
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
			fl.Flush()
		case <-r.Context().Done():
			c.mu.Lock()
			if c.sess[id] == ch {
				c.sess[id] = nil
			}
			c.mu.Unlock()
			return
		}
	}
}
