package ide

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/mcp"
)

// State is where the connection stands.
type State int

const (
	Disconnected State = iota
	Connecting
	Connected
)

func (s State) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Connected:
		return "connected"
	}
	return "disconnected"
}

// Status is the connection's state as the user is shown it.
type Status struct {
	State State
	// IDE names the editor when known; Detail says why the state is what
	// it is (a refusal's reason, a lost connection).
	IDE, Detail string
	// Diffing says the editor offers its diff view for approvals.
	Diffing bool
	// Found: a companion's discovery file was found, whatever came of it.
	Found bool
}

// Options configure a Client.
type Options struct {
	Env    Env
	Logger *slog.Logger
	// ClientVersion is ply's version, for the handshake.
	ClientVersion string
	// ConnectTimeout bounds discovery and the handshake (5 s when 0).
	ConnectTimeout time.Duration
}

// Client is ply's side of one companion connection. Its zero value and a
// nil *Client are disconnected and do nothing.
type Client struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	conn    *mcp.Conn
	server  Server
	status  Status
	cur     Context
	hasCur  bool
	sent    *Context // what the model was last told
	pending map[string]chan DiffResult
	diffMu  chan struct{} // one diff view at a time
}

// New returns a disconnected client.
func New(o Options) *Client {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 5 * time.Second
	}
	return &Client{opts: o, log: log, diffMu: make(chan struct{}, 1)}
}

// Status is where the connection stands.
func (c *Client) Status() Status {
	if c == nil {
		return Status{Detail: "IDE integration is not available in this mode"}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Connect discovers the editor's companion and connects to it; the
// notices are discovery files passed over, and why. A connection already
// open is kept.
func (c *Client) Connect(ctx context.Context) (Status, []string) {
	if c == nil {
		return Status{}, nil
	}
	c.mu.Lock()
	if c.status.State != Disconnected {
		defer c.mu.Unlock()
		return c.status, nil
	}
	c.status = Status{State: Connecting}
	c.mu.Unlock()

	srv, notices, err := Discover(c.opts.Env)
	if err != nil {
		var re *RefusedError
		st := c.fail(err.Error())
		if !errors.As(err, &re) || !re.NotFound {
			st = c.found()
		}
		return st, notices
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	conn, err := mcp.Dial(ctx, mcp.DialOptions{
		URL:            srv.URL(),
		Header:         map[string]string{"Authorization": "Bearer " + srv.token},
		ClientName:     "ply",
		ClientVersion:  c.opts.ClientVersion,
		OnNotification: c.notify,
		Logger:         c.log,
	})
	if err != nil {
		c.log.Info("ide: connecting failed", "server", srv.String(), "err", err)
		c.fail(fmt.Sprintf("could not connect to the IDE companion extension (%s): %v", srv, err))
		return c.found(), notices
	}
	names, err := conn.ToolNames(ctx)
	if err != nil {
		c.log.Info("ide: listing the companion's tools failed", "err", err)
	}
	c.mu.Lock()
	c.conn, c.server = conn, srv
	c.status = Status{State: Connected, IDE: srv.IDE, Found: true,
		Diffing: slices.Contains(names, "openDiff") && slices.Contains(names, "closeDiff")}
	st := c.status
	c.mu.Unlock()
	c.log.Info("ide: connected", "server", srv.String(), "diffing", st.Diffing)
	go c.watch(conn)
	return st, notices
}

// fail records a refusal or failure as the disconnected state's detail.
func (c *Client) fail(detail string) Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = Status{State: Disconnected, Detail: detail}
	return c.status
}

// found marks the disconnected state as one where a companion was found.
func (c *Client) found() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status.Found = true
	return c.status
}

// watch marks the connection lost when its stream ends.
func (c *Client) watch(conn *mcp.Conn) {
	<-conn.Done()
	c.mu.Lock()
	if c.conn != conn {
		c.mu.Unlock()
		return
	}
	c.conn = nil
	c.status = Status{State: Disconnected, Detail: fmt.Sprintf("the connection to the IDE was lost (%v); /ide enable reconnects", conn.Err())}
	c.dropLocked()
	c.mu.Unlock()
	_ = conn.Close()
}

// Disconnect closes the connection; the editor's context is forgotten
// and open diff views are closed.
func (c *Client) Disconnect() {
	if c == nil {
		return
	}
	c.mu.Lock()
	conn := c.conn
	c.conn = nil
	var open []string
	for p := range c.pending {
		open = append(open, p)
	}
	c.status = Status{State: Disconnected, Detail: "IDE integration is off; /ide enable turns it on"}
	c.dropLocked()
	c.mu.Unlock()
	if conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, p := range open {
		_, _, _ = conn.CallTool(ctx, "closeDiff", map[string]any{"filePath": p, "suppressNotification": true})
	}
	_ = conn.Close()
}

// dropLocked forgets the context and ends the diffs waiting for an
// answer: the editor will not give one.
func (c *Client) dropLocked() {
	c.cur, c.hasCur, c.sent = Context{}, false, nil
	for p, ch := range c.pending {
		ch <- DiffResult{Outcome: DiffGone}
		delete(c.pending, p)
	}
}

// notify handles the companion's notifications.
func (c *Client) notify(method string, params json.RawMessage) {
	switch method {
	case "ide/contextUpdate":
		ctx, err := ParseContext(params)
		if err != nil {
			c.log.Info("ide: a context update was malformed", "err", err)
			return
		}
		c.mu.Lock()
		c.cur, c.hasCur = ctx, true
		c.mu.Unlock()
	case "ide/diffAccepted", "ide/diffRejected", "ide/diffClosed":
		var p struct {
			FilePath string  `json:"filePath"`
			Content  *string `json:"content"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		r := DiffResult{Outcome: DiffRejected}
		if method == "ide/diffAccepted" {
			r.Outcome = DiffAccepted
			if p.Content != nil {
				r.Content, r.HasContent = *p.Content, true
			}
		}
		c.mu.Lock()
		if ch, ok := c.pending[p.FilePath]; ok {
			ch <- r
			delete(c.pending, p.FilePath)
		}
		c.mu.Unlock()
	}
}

// TakeContext returns the block telling the model what changed in the
// editor since the last call ("" when nothing did, or when not
// connected), and records that the model has now been told.
func (c *Client) TakeContext() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.hasCur {
		return ""
	}
	s := Describe(c.sent, c.cur, c.server.IDE)
	cur := c.cur
	c.sent = &cur
	return s
}

// Outcome of a diff shown in the editor.
type Outcome int

const (
	// DiffGone: the editor will not answer (the connection ended, the
	// view could not be opened).
	DiffGone Outcome = iota
	DiffAccepted
	DiffRejected
)

// DiffResult is the editor's answer to a diff.
type DiffResult struct {
	Outcome Outcome
	// Content is the file's text as accepted, with the user's own edits,
	// when the editor sent it (HasContent).
	Content    string
	HasContent bool
}

// OpenDiff shows the change of path to content in the editor's diff view
// and waits for the user's answer there. When ctx ends first, the view
// is closed and DiffGone returned.
func (c *Client) OpenDiff(ctx context.Context, path, content string) DiffResult {
	if c == nil {
		return DiffResult{}
	}
	select {
	case c.diffMu <- struct{}{}:
	case <-ctx.Done():
		return DiffResult{}
	}
	defer func() { <-c.diffMu }()
	ch := make(chan DiffResult, 1)
	c.mu.Lock()
	conn := c.conn
	if conn == nil || !c.status.Diffing {
		c.mu.Unlock()
		return DiffResult{}
	}
	if c.pending == nil {
		c.pending = map[string]chan DiffResult{}
	}
	c.pending[path] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		if c.pending[path] == ch {
			delete(c.pending, path)
		}
		c.mu.Unlock()
	}
	_, isErr, err := conn.CallTool(ctx, "openDiff", map[string]any{"filePath": path, "newContent": content})
	if err != nil || isErr {
		forget()
		if ctx.Err() == nil {
			c.log.Info("ide: opening a diff failed", "path", path, "err", err, "is_error", isErr)
		}
		c.closeDiff(conn, path)
		return DiffResult{}
	}
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		forget()
		c.closeDiff(conn, path)
		return DiffResult{}
	}
}

// closeDiff closes path's diff view without the editor answering for it.
func (c *Client) closeDiff(conn *mcp.Conn, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, _, err := conn.CallTool(ctx, "closeDiff", map[string]any{"filePath": path, "suppressNotification": true}); err != nil && !errors.Is(err, context.Canceled) {
		c.log.Info("ide: closing a diff failed", "path", path, "err", err)
	}
}

// Diffing reports whether approvals can be answered in the editor.
func (c *Client) Diffing() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn != nil && c.status.Diffing
}

// Latest is the editor's latest context; ok is false before the first
// update.
func (c *Client) Latest() (ctx Context, ok bool) {
	if c == nil {
		return Context{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur, c.hasCur
}

// Active is the file with the focus, and its cursor as text ("" for none).
func (ctx Context) Active() (path, cursor string) {
	a := ctx.active()
	if a == nil {
		return "", ""
	}
	if a.Cursor != nil {
		cursor = position(a.Cursor)
	}
	return a.Path, cursor
}
