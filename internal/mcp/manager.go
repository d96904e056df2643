package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plyhq/ply/internal/envpolicy"
	"github.com/plyhq/ply/internal/tools"
)

// Errors that Failure.Err and server errors wrap, for callers that branch.
var (
	// ErrConnectTimeout: the server did not finish starting, answering the
	// handshake and listing its tools within the connect timeout.
	ErrConnectTimeout = errors.New("no answer")
	// ErrServerDied: the server's process exited or its connection closed.
	ErrServerDied = errors.New("server stopped")
	// ErrClosed: the Manager was closed.
	ErrClosed = errors.New("mcp connections closed")
)

// Options configure a Manager. The zero value works.
type Options struct {
	// Logger receives progress and every line servers write to stderr.
	// Nothing is ever printed; nil discards.
	Logger *slog.Logger
	// ClientName and ClientVersion are sent in the handshake; defaults
	// "ply" and "dev".
	ClientName    string
	ClientVersion string
	// ConnectTimeout bounds, per server, starting it, the handshake and
	// listing its tools; zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Env is the base environment of stdio servers; nil means ply's own
	// without the variables envpolicy withholds by default. A server
	// also gets the variables its configuration names (ServerConfig).
	Env []string
	// LookupEnv reads the variables a server's EnvVars names; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// OAuthDir holds the tokens of HTTP servers that require OAuth
	// ($PLY_HOME/mcp-oauth, see Login); empty means no OAuth.
	OAuthDir string
	// CloseGrace is how long Close waits for a stdio server to exit after
	// closing its stdin, and again after SIGTERM, before SIGKILL; zero
	// means 2s.
	CloseGrace time.Duration
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.ClientName == "" {
		o.ClientName = "ply"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.Env == nil {
		o.Env = envpolicy.Environ()
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.CloseGrace <= 0 {
		o.CloseGrace = 2 * time.Second
	}
	return o
}

// Failure is a server that could not be used.
type Failure struct {
	Server string
	Err    error
}

func (f Failure) Error() string { return fmt.Sprintf("mcp server %q: %v", f.Server, f.Err) }

// Manager owns the connections to a set of servers.
type Manager struct {
	opts    Options
	names   []string // sorted; disabled servers excluded
	servers map[string]*server
	// ctx lives until Close; calls in flight end with it.
	ctx         context.Context
	cancel      context.CancelFunc
	cancelStart context.CancelFunc
	wg          sync.WaitGroup
	once        sync.Once
}

// server is the state of one configured server.
type server struct {
	cfg    ServerConfig
	opts   *Options
	stderr *tailBuffer // stdio only

	// done is closed when starting has finished; the fields below it are
	// fixed from then on.
	done      chan struct{}
	err       error
	session   *sdk.ClientSession
	proc      *proc           // stdio only
	transport *http.Transport // HTTP only
	listed    []*sdk.Tool
	elapsed   time.Duration

	// dead is closed when the connection ended; deadErr says why.
	dead     chan struct{}
	deadOnce sync.Once
	deadErr  error
}

// Start connects to every enabled server in the background, all at once,
// and returns immediately. ctx bounds the starting only; the sessions live
// until Close.
func Start(ctx context.Context, servers map[string]ServerConfig, opts Options) *Manager {
	o := opts.withDefaults()
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sctx, cancelStart := context.WithCancel(ctx)
	m := &Manager{opts: o, servers: map[string]*server{}, ctx: life, cancel: cancel, cancelStart: cancelStart}
	for name, cfg := range servers {
		if cfg.Disabled {
			continue
		}
		if cfg.Name == "" {
			cfg.Name = name
		}
		if cfg.ID == "" {
			cfg.ID = sanitize(cfg.Name)
		}
		s := &server{cfg: cfg, opts: &m.opts, done: make(chan struct{}), dead: make(chan struct{})}
		if cfg.Transport == TransportStdio || (cfg.Transport == "" && cfg.Command != "") {
			s.stderr = newTailBuffer(o.Logger, cfg.Name)
		}
		m.servers[name] = s
		m.names = append(m.names, name)
	}
	slices.Sort(m.names)
	for _, name := range m.names {
		s := m.servers[name]
		m.wg.Go(func() { s.start(sctx, life, &m.wg) })
	}
	return m
}

// start connects, lists the tools and watches the connection.
// ctx bounds starting; life is the lifetime of the session.
func (s *server) start(ctx, life context.Context, wg *sync.WaitGroup) {
	t0 := time.Now()
	log := s.opts.Logger.With("server", s.cfg.Name)
	cctx, cancel := context.WithTimeout(ctx, s.opts.ConnectTimeout)
	defer cancel()
	err := s.connect(cctx, life)
	if err == nil {
		s.listed, err = listTools(cctx, s.session)
		if err != nil {
			err = fmt.Errorf("listing tools: %w", err)
		}
	}
	s.elapsed = time.Since(t0)
	if err != nil {
		s.err = s.startError(cctx, err)
		s.markDead(s.err)
		log.Warn("mcp server failed to start", "err", s.err, "elapsed", s.elapsed)
		close(s.done)
		s.shutdown()
		return
	}
	log.Info("mcp server connected", "tools", len(s.listed), "elapsed", s.elapsed)
	wg.Go(func() {
		werr := s.session.Wait()
		s.markDead(s.diedError(werr))
	})
	if s.proc != nil {
		wg.Go(func() {
			select {
			case <-s.proc.exited:
				s.markDead(s.diedError(nil))
				_ = s.session.Close() // fail calls still waiting
			case <-s.dead:
			}
		})
	}
	close(s.done)
}

func (s *server) connect(ctx, life context.Context) error {
	client := sdk.NewClient(&sdk.Implementation{Name: s.opts.ClientName, Version: s.opts.ClientVersion}, &sdk.ClientOptions{
		Logger:       s.opts.Logger.With("server", s.cfg.Name),
		Capabilities: &sdk.ClientCapabilities{},
	})
	if s.cfg.RoundTrip != nil {
		cs, err := client.Connect(ctx, roundTripTransport{s.cfg.RoundTrip}, nil)
		if err != nil {
			return fmt.Errorf("handshake: %w", err)
		}
		s.session = cs
		return nil
	}
	if s.cfg.URL != "" {
		hc, tr := newHTTPClient(s.cfg)
		s.transport = tr
		cs, err := connectAny(ctx, client, httpTransports(s.cfg, hc, life, s.opts.OAuthDir))
		if err != nil {
			return fmt.Errorf("connecting to %s: %w", s.cfg.URL, err)
		}
		s.session = cs
		return nil
	}
	p, err := startProc(s.cfg, serverEnviron(s.cfg, *s.opts), s.stderr, s.opts.CloseGrace)
	if err != nil {
		return err
	}
	s.proc = p
	// A server that exits during the handshake ends it at once rather than
	// at the timeout.
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.exited:
			cancel()
		case <-hctx.Done():
		}
	}()
	cs, err := client.Connect(hctx, p.transport(), nil)
	if err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	s.session = cs
	return nil
}

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// startError explains a failed start, preferring the process's fate and
// its stderr over the protocol error it caused.
func (s *server) startError(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w within %v (%v)%s", ErrConnectTimeout, s.opts.ConnectTimeout, err, s.stderrNote())
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%w: starting was cancelled", ErrClosed)
	}
	if s.proc != nil {
		select {
		case <-s.proc.exited:
			return fmt.Errorf("%w: the process ended (%s) while starting%s", ErrServerDied, s.proc.exitDescription(), s.stderrNote())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%w%s", err, s.stderrNote())
}

// diedError explains why an established connection ended.
func (s *server) diedError(werr error) error {
	if s.proc != nil {
		select {
		case <-s.proc.exited:
			return fmt.Errorf("%w: the process ended (%s)%s", ErrServerDied, s.proc.exitDescription(), s.stderrNote())
		case <-s.dead: // closing: the reason is known already
			return s.deadErr
		case <-time.After(500 * time.Millisecond):
		}
	}
	if werr != nil {
		return fmt.Errorf("%w: the connection closed: %v", ErrServerDied, werr)
	}
	return fmt.Errorf("%w: the connection closed", ErrServerDied)
}

func (s *server) stderrNote() string {
	if t := s.stderr.Tail(10); t != "" {
		return "; last lines of its stderr:\n" + t
	}
	return ""
}

func (s *server) markDead(err error) {
	s.deadOnce.Do(func() {
		s.deadErr = err
		close(s.dead)
	})
}

// deadError returns why the connection ended, or nil while it is up.
func (s *server) deadError() error {
	select {
	case <-s.dead:
		return s.deadErr
	default:
		return nil
	}
}

// shutdown closes the session and stops the process; it is safe to call
// once start has finished, whatever its outcome.
func (s *server) shutdown() {
	closed := make(chan struct{})
	go func() {
		if s.session != nil {
			_ = s.session.Close()
		}
		close(closed)
	}()
	if s.proc != nil {
		s.proc.stop(s.opts.CloseGrace)
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		s.opts.Logger.Warn("mcp session did not close", "server", s.cfg.Name)
	}
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
}

// wait blocks until the server has started or failed, or ctx is done.
func (s *server) wait(ctx context.Context) error {
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("still connecting: %w", ctx.Err())
	}
}

// Tools waits until every server has connected and listed its tools, or
// failed (each within the connect timeout), or ctx is done, and returns the
// tools of the servers that work and one Failure per server that does not.
// Servers are taken in name order and tools in name order, so names that
// need disambiguating get the same names every time.
func (m *Manager) Tools(ctx context.Context) ([]tools.Tool, []Failure) {
	var out []tools.Tool
	var fails []Failure
	taken := map[string]bool{}
	for _, name := range m.names {
		s := m.servers[name]
		if err := s.wait(ctx); err != nil {
			fails = append(fails, Failure{Server: name, Err: err})
			continue
		}
		if s.err != nil {
			fails = append(fails, Failure{Server: name, Err: s.err})
			continue
		}
		for _, t := range s.filtered() {
			n := uniqueName(ToolName(s.cfg.ID, t.Name), s.cfg.Name+"\x00"+t.Name, taken)
			taken[n] = true
			out = append(out, newTool(m, s, t, n))
		}
	}
	return out, fails
}

// filtered returns the listed tools that includeTools and excludeTools
// keep, sorted by name.
func (s *server) filtered() []*sdk.Tool {
	var out []*sdk.Tool
	for _, t := range s.listed {
		if len(s.cfg.IncludeTools) > 0 && !slices.Contains(s.cfg.IncludeTools, t.Name) {
			continue
		}
		if slices.Contains(s.cfg.ExcludeTools, t.Name) {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *sdk.Tool) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// Close cancels calls in flight and starts still under way, closes every
// session and stops every stdio server, in parallel. It returns when all
// of it, and every goroutine the Manager started, has finished.
func (m *Manager) Close() error {
	m.once.Do(func() {
		m.cancelStart()
		m.cancel()
		var wg sync.WaitGroup
		for _, name := range m.names {
			s := m.servers[name]
			wg.Go(func() {
				<-s.done
				if s.err == nil {
					s.markDead(fmt.Errorf("%w", ErrClosed))
					s.shutdown()
				}
			})
		}
		wg.Wait()
		m.wg.Wait()
	})
	return nil
}
