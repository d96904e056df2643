package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// proc is a stdio server's process. Its pipes are plain os.Pipe ends, so
// that Wait, which runs in its own goroutine from the start, never closes
// them under a reader.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // ours: the write end
	stdout *os.File // ours: the read end
	exited chan struct{}
	// waitErr is set before exited is closed.
	waitErr error
}

// serverEnviron is the environment of cfg's process: the base one, the
// variables the configuration names by name, and its env map, later
// entries winning.
func serverEnviron(cfg ServerConfig, o Options) []string {
	env := slices.Clip(o.Env)
	for _, name := range cfg.EnvVars {
		if v, ok := o.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for k, v := range cfg.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// startProc starts cfg's command with env and stderr going to stderr.
func startProc(cfg ServerConfig, env []string, stderr *tailBuffer, grace time.Duration) (*proc, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Cwd
	cmd.Env = env
	cmd.Stderr = stderr
	// A grandchild that keeps stderr open must not hold Wait forever.
	cmd.WaitDelay = grace
	setProcGroup(cmd)

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating the stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		return nil, fmt.Errorf("creating the stdout pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	// The child has its own copies now.
	_ = inR.Close()
	_ = outW.Close()
	if err != nil {
		_ = inW.Close()
		_ = outR.Close()
		return nil, fmt.Errorf("starting %q: %w", cfg.Command, err)
	}
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// transport is the SDK transport over the process's pipes.
func (p *proc) transport() sdk.Transport {
	return &sdk.IOTransport{Reader: p.stdout, Writer: p.stdin}
}

// exitDescription says how the process ended; call only after exited.
func (p *proc) exitDescription() string {
	if p.waitErr == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.String() // "exit status 2", "signal: killed"
	}
	return p.waitErr.Error()
}

// stop ends the process: stdin is closed (the polite request), then after
// grace the process group gets SIGTERM, then after grace again SIGKILL.
// Whatever is left of the group is killed at the end, so that a server's
// own children do not outlive ply.
func (p *proc) stop(grace time.Duration) {
	_ = p.stdin.Close()
	defer func() {
		killGroup(p.cmd)
		_ = p.stdout.Close()
	}()
	select {
	case <-p.exited:
		return
	case <-time.After(grace):
	}
	termGroup(p.cmd)
	select {
	case <-p.exited:
		return
	case <-time.After(grace):
	}
	killGroup(p.cmd)
	<-p.exited
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

// newHTTPClient returns a client with its own connection pool (closed with
// the server) that sends cfg's headers.
func newHTTPClient(cfg ServerConfig) (*http.Client, *http.Transport) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Transport: &headerTransport{base: base, headers: cfg.Headers}}, base
}

// httpTransports returns the transports to try for an HTTP server, in
// order.
func httpTransports(cfg ServerConfig, client *http.Client, life context.Context, oauthDir string) []sdk.Transport {
	streamable := &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, DisableStandaloneSSE: true}
	if oauthDir != "" {
		streamable.OAuthHandler = newSessionAuth(cfg, oauthDir, client)
	}
	sse := &detached{t: &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}, life: life}
	switch cfg.Transport {
	case TransportSSE:
		return []sdk.Transport{sse}
	case TransportAuto:
		return []sdk.Transport{streamable, sse}
	}
	return []sdk.Transport{streamable}
}

// detached connects t with a context that lives as long as life rather
// than as long as the connect call: the HTTP+SSE client binds its event
// stream to the context it connects with. The connect call's context still
// bounds connecting.
type detached struct {
	t    sdk.Transport
	life context.Context
}

func (d *detached) Connect(ctx context.Context) (sdk.Connection, error) {
	cctx, cancel := context.WithCancel(d.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := d.t.Connect(cctx)
	if !stop() {
		// ctx ended while connecting.
		if err == nil {
			_ = conn.Close()
		}
		cancel()
		return nil, fmt.Errorf("connecting: %w", ctx.Err())
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelOnClose{Connection: conn, cancel: cancel}, nil
}

type cancelOnClose struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// tailBuffer keeps the last bytes a server wrote to stderr, for error
// messages, and logs each complete line.
type tailBuffer struct {
	mu      sync.Mutex
	buf     []byte
	partial []byte
	max     int
	log     *slog.Logger
	server  string
}

const stderrKeep = 4096

func newTailBuffer(log *slog.Logger, server string) *tailBuffer {
	return &tailBuffer{max: stderrKeep, log: log, server: server}
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			break
		}
		b.log.Info("mcp server stderr", "server", b.server, "line", strings.TrimRight(string(b.partial[:i]), "\r"))
		b.partial = b.partial[i+1:]
	}
	if len(b.partial) > b.max {
		b.log.Info("mcp server stderr", "server", b.server, "line", string(b.partial))
		b.partial = b.partial[:0]
	}
	return len(p), nil
}

// Tail returns at most the last n non-empty lines written.
func (b *tailBuffer) Tail(n int) string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	s := string(b.buf)
	b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, "\n")
}

// connectAny connects over the first transport that works.
func connectAny(ctx context.Context, c *sdk.Client, ts []sdk.Transport) (*sdk.ClientSession, error) {
	var errs []error
	for _, t := range ts {
		cs, err := c.Connect(ctx, t, nil)
		if err == nil {
			return cs, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", transportName(t), err))
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 1 {
		return nil, errors.Unwrap(errs[0])
	}
	return nil, errors.Join(errs...)
}

func transportName(t sdk.Transport) string {
	switch t.(type) {
	case *detached:
		return "HTTP+SSE"
	case *sdk.StreamableClientTransport:
		return "streamable HTTP"
	}
	return "stdio"
}
