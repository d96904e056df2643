package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plyhq/ply/internal/sse"
)

// dialProtocolVersion is the protocol version Dial asks for.
const dialProtocolVersion = "2025-06-18"

// DialOptions configure a Conn.
type DialOptions struct {
	// URL is the server's streamable HTTP endpoint.
	URL string
	// Header is sent with every request (an Authorization header, say).
	// It is never logged.
	Header map[string]string
	// ClientName and ClientVersion are what the handshake says of ply.
	ClientName, ClientVersion string
	// OnNotification is handed every notification the server sends on
	// its listening stream whose method the protocol does not define
	// ("ide/contextUpdate"), with its raw params. It runs on the
	// listening goroutine, one notification at a time.
	OnNotification func(method string, params json.RawMessage)
	Logger         *slog.Logger
}

// Conn is a connection to one streamable HTTP server that, beside calling
// its tools, listens for the notifications the server sends on its own
// (the stream opened with GET): an editor's companion extension speaks
// through methods of its own there, which the SDK's client refuses to
// hand on. It never goes through a proxy and never follows a redirect,
// so the header reaches the URL's host and nothing else.
type Conn struct {
	cs     *sdk.ClientSession
	hc     *http.Client
	tr     *http.Transport
	url    string
	header map[string]string
	on     func(string, json.RawMessage)
	log    *slog.Logger

	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error // why listening ended
}

// Dial connects to o.URL and starts listening. ctx bounds the handshake
// only.
func Dial(ctx context.Context, o DialOptions) (*Conn, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil // the header holds a secret for this host only
	hc := &http.Client{
		Transport: &headerTransport{base: base, headers: o.Header},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("the server answered with a redirect, which is not followed")
		},
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: o.ClientName, Version: o.ClientVersion}, &sdk.ClientOptions{
		Logger:       log,
		Capabilities: &sdk.ClientCapabilities{},
	})
	t := &sdk.StreamableClientTransport{Endpoint: o.URL, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}
	// The version the companions' servers speak: a newer client would
	// first try a discovery call they answer with an error.
	cs, err := client.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: dialProtocolVersion})
	if err != nil {
		base.CloseIdleConnections()
		return nil, fmt.Errorf("connecting to %s: %w", o.URL, err)
	}
	life, cancel := context.WithCancel(context.Background())
	c := &Conn{cs: cs, hc: hc, tr: base, url: o.URL, header: o.Header, on: o.OnNotification,
		log: log, cancel: cancel, done: make(chan struct{})}
	body, err := c.openStream(ctx, life)
	if err != nil {
		cancel()
		_ = cs.Close()
		base.CloseIdleConnections()
		return nil, err
	}
	go c.listen(body)
	return c, nil
}

// openStream opens the listening stream of the session.
func (c *Conn) openStream(ctx, life context.Context) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(life, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, fmt.Errorf("opening the listening stream: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if id := c.cs.ID(); id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	if r := c.cs.InitializeResult(); r != nil && r.ProtocolVersion != "" {
		req.Header.Set("Mcp-Protocol-Version", r.ProtocolVersion)
	}
	// The handshake's deadline bounds waiting for the answer, not the
	// stream, which lives as long as the connection (life).
	stop := context.AfterFunc(ctx, c.cancel)
	resp, err := c.hc.Do(req)
	if !stop() {
		if err == nil {
			_ = resp.Body.Close()
		}
		return nil, fmt.Errorf("opening the listening stream: %w", ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("opening the listening stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("opening the listening stream: the server answered %s (%s)", resp.Status, resp.Header.Get("Content-Type"))
	}
	return resp.Body, nil
}

// wireMessage is a JSON-RPC message as the listening stream carries it.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// listen reads the listening stream until it ends.
func (c *Conn) listen(body io.ReadCloser) {
	defer close(c.done)
	defer body.Close()
	r := sse.NewReader(body)
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the server closed the listening stream")
			}
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
		var m wireMessage
		if json.Unmarshal(ev.Data, &m) != nil || m.Method == "" {
			continue
		}
		if len(m.ID) > 0 && string(m.ID) != "null" {
			continue // a request of the server's: none is answered here
		}
		if m.Method == "ping" || strings.HasPrefix(m.Method, "notifications/") || c.on == nil {
			continue
		}
		c.on(m.Method, append(json.RawMessage(nil), m.Params...))
	}
}

// Done is closed when the listening stream has ended; Err says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the listening stream ended (nil while it runs).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// ToolNames lists the server's tools.
func (c *Conn) ToolNames(ctx context.Context) ([]string, error) {
	ts, err := listTools(ctx, c.cs)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return names, nil
}

// CallTool calls the server's tool name with args and returns the text of
// its result; isError is the result's own error flag.
func (c *Conn) CallTool(ctx context.Context, name string, args any) (text string, isError bool, err error) {
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, fmt.Errorf("calling %s: %w", name, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// Close ends the session and the listening stream and waits for the
// listener to stop.
func (c *Conn) Close() error {
	c.cancel()
	err := c.cs.Close()
	<-c.done
	c.tr.CloseIdleConnections()
	return err
}
