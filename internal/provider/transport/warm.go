package transport

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// spareMaxAge is how long a connection opened ahead of the first request
// is kept for it. A server closes a connection that stays silent for
// long; one older than this is closed and a request dials afresh.
const spareMaxAge = 10 * time.Second

// warmer keeps at most one connection opened ahead of need: the
// transport's dial takes it when it asks for the same address, so that
// the name lookup, TCP's handshake and, for https, TLS's handshake of a
// session's first request overlap ply's start-up instead of following
// it. It also makes the transport's other TLS connections (DialTLSContext),
// as the transport itself would.
type warmer struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	now  func() time.Time
	// tr is the transport whose dials these are: its current DialContext
	// makes the TCP connection under TLS, so that whoever replaces it
	// observes every dial. Nil: dial.
	tr *http.Transport
	// The TLS handshake's settings, as the transport's were when it was
	// made (it changes its own config at its first request).
	tlsConfig        *tls.Config // nil: the defaults
	handshakeTimeout time.Duration
	offerH2          bool

	mu    sync.Mutex
	spare *spare // nil when none is open or being opened
}

// spare is one connection being opened or opened; key is "tcp addr" or
// "tls addr". done is closed when conn and err are set.
type spare struct {
	key    string
	opened time.Time
	done   chan struct{}
	conn   net.Conn
	err    error
	timer  *time.Timer // closes an unclaimed conn at spareMaxAge
}

// DialContext is the transport's dial: the spare connection for addr
// when there is a fresh one, a new connection otherwise.
func (w *warmer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if network == "tcp" && ctx.Value(openingSpare{}) == nil {
		if c, ok, err := w.claim(ctx, "tcp "+addr); ok {
			return c, err
		}
	}
	return w.dial(ctx, network, addr)
}

// DialTLSContext is the transport's dial for https: the spare TLS
// connection for addr when there is a fresh one, a new one otherwise.
func (w *warmer) DialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if c, ok, err := w.claim(ctx, "tls "+addr); ok {
		return c, err
	}
	return w.dialTLS(ctx, network, addr)
}

// claim takes the spare for key: its connection when it opens fresh, or
// the context's error if that ends first. ok is false when there is no
// spare for key, or it failed or grew stale: the caller dials itself.
func (w *warmer) claim(ctx context.Context, key string) (c net.Conn, ok bool, err error) {
	s := w.take(key)
	if s == nil {
		return nil, false, nil
	}
	select {
	case <-s.done:
		if s.err == nil && w.now().Sub(s.opened) < spareMaxAge {
			return s.conn, true, nil
		}
		if s.conn != nil {
			s.conn.Close()
		}
		return nil, false, nil
	case <-ctx.Done():
		go func() {
			<-s.done
			if s.conn != nil {
				s.conn.Close()
			}
		}()
		return nil, true, ctx.Err()
	}
}

// dialTLS connects to addr through the transport's dial and makes the TLS
// handshake the transport would: its TLS settings, the host as the server
// name, HTTP/2 offered when the transport speaks it, within its handshake
// timeout.
func (w *warmer) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := w.tcpDial()(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{}
	if w.tlsConfig != nil {
		cfg = w.tlsConfig.Clone()
	}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			conn.Close()
			return nil, err
		}
		cfg.ServerName = host
	}
	if len(cfg.NextProtos) == 0 && w.offerH2 && !http2Off() {
		// What the transport offers: it speaks HTTP/2 when the server
		// agrees to it.
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	if w.handshakeTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.handshakeTimeout)
		defer cancel()
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

// tcpDial is the dial that makes TCP connections under TLS and spares:
// the transport's current DialContext, w.dial without a transport.
func (w *warmer) tcpDial() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if w.tr != nil && w.tr.DialContext != nil {
		return w.tr.DialContext
	}
	return w.dial
}

// http2Off reports GODEBUG=http2client=0, with which the transport
// speaks only HTTP/1.1 and a connection must not agree on h2.
func http2Off() bool {
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if strings.TrimSpace(kv) == "http2client=0" {
			return true
		}
	}
	return false
}

// take removes and returns the spare for key, nil if there is none.
func (w *warmer) take(key string) *spare {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.spare
	if s == nil || s.key != key {
		return nil
	}
	w.spare = nil
	if s.timer != nil {
		s.timer.Stop()
	}
	return s
}

// openingSpare marks the context of the dial that opens a spare: it
// goes through the transport's dial as every other (whoever observes
// dials sees it too), which must not hand it the spare it is opening.
type openingSpare struct{}

// open starts a connection to addr in the background (tcpDial), over
// TLS when tls is set, unless one is already open or being opened. It
// waits for nothing.
func (w *warmer) open(addr string, tls bool, timeout time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spare != nil {
		return
	}
	key := "tcp " + addr
	if tls {
		key = "tls " + addr
	}
	s := &spare{key: key, opened: w.now(), done: make(chan struct{})}
	w.spare = s
	go func() {
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), openingSpare{}, true), timeout)
		defer cancel()
		var conn net.Conn
		var err error
		if tls {
			conn, err = w.dialTLS(ctx, "tcp", addr)
		} else {
			conn, err = w.tcpDial()(ctx, "tcp", addr)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		s.conn, s.err = conn, err
		close(s.done)
		switch {
		case w.spare != s:
			// Taken while it was being opened: the taker has it.
		case err != nil:
			w.spare = nil // the first request dials again and reports what fails
		default:
			s.timer = time.AfterFunc(spareMaxAge, func() { w.expire(s) })
		}
	}()
}

// expire closes s if no dial took it.
func (w *warmer) expire(s *spare) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spare == s {
		w.spare = nil
		s.conn.Close()
	}
}

// defaultWarmer dials DefaultHTTPClient's connections.
var defaultWarmer = &warmer{
	dial: (&net.Dialer{Timeout: DefaultConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
	now:  time.Now,
}

// Warm opens, in the background, the connection DefaultHTTPClient will
// need for its first request to rawURL (TCP, and TLS for https), so that
// a session's first request does not wait for the name lookup and the
// handshakes. It does nothing for a URL it cannot read or one a proxy
// serves (the connection would go to the proxy, and how is the
// transport's business). A connection no request takes within
// spareMaxAge is closed.
func Warm(rawURL string) {
	tr, ok := DefaultHTTPClient.Transport.(*http.Transport)
	if !ok || tr.DialContext == nil {
		return
	}
	addr, tls, ok := warmAddr(rawURL, tr.Proxy)
	if !ok {
		return
	}
	defaultWarmer.open(addr, tls, DefaultConnectTimeout)
}

// warmAddr is the host:port a request to rawURL dials directly and
// whether it speaks TLS there; ok is false when that is not known: a URL that does not parse, a scheme other than
// http and https, a host that is not plain ASCII (the transport converts
// those first), or a proxy that serves the URL.
func warmAddr(rawURL string, proxy func(*http.Request) (*url.URL, error)) (addr string, tls, ok bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", false, false
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", false, false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	host := u.Hostname()
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "", false, false
		}
	}
	if proxy != nil {
		p, err := proxy(&http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}})
		if err != nil || p != nil {
			return "", false, false
		}
	}
	return net.JoinHostPort(host, port), u.Scheme == "https", true
}
