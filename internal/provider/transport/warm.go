package transport

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// spareMaxAge is how long a connection opened ahead of the first request
// is kept for it. A server closes a connection that stays silent for
// long; one older than this is closed and a request dials afresh.
const spareMaxAge = 10 * time.Second

// warmer keeps at most one connection opened ahead of need: the
// transport's dial takes it when it asks for the same address, so that
// the name lookup and TCP's handshake of a session's first request
// overlap ply's start-up instead of following it. The TLS handshake, if
// any, is still the transport's, on the connection taken.
type warmer struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	now  func() time.Time

	mu    sync.Mutex
	spare *spare // nil when none is open or being opened
}

// spare is one connection being opened or opened for addr; done is
// closed when conn and err are set.
type spare struct {
	addr   string
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
		if s := w.take(addr); s != nil {
			select {
			case <-s.done:
				if s.err == nil && w.now().Sub(s.opened) < spareMaxAge {
					return s.conn, nil
				}
				if s.conn != nil {
					s.conn.Close()
				}
			case <-ctx.Done():
				go func() {
					<-s.done
					if s.conn != nil {
						s.conn.Close()
					}
				}()
				return nil, ctx.Err()
			}
		}
	}
	return w.dial(ctx, network, addr)
}

// take removes and returns the spare for addr, nil if there is none.
func (w *warmer) take(addr string) *spare {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.spare
	if s == nil || s.addr != addr {
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

// open starts a connection to addr with dial in the background, unless
// one is already open or being opened. It waits for nothing.
func (w *warmer) open(addr string, timeout time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spare != nil {
		return
	}
	s := &spare{addr: addr, opened: w.now(), done: make(chan struct{})}
	w.spare = s
	go func() {
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), openingSpare{}, true), timeout)
		defer cancel()
		conn, err := dial(ctx, "tcp", addr)
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
// need for its first request to rawURL, so that a session's first request
// does not wait for the name lookup and TCP's handshake. It does nothing
// for a URL it cannot read or one a proxy serves (the connection would go
// to the proxy, and how is the transport's business). A connection no
// request takes within spareMaxAge is closed.
func Warm(rawURL string) {
	tr, ok := DefaultHTTPClient.Transport.(*http.Transport)
	if !ok {
		return
	}
	addr, ok := warmAddr(rawURL, tr.Proxy)
	if !ok {
		return
	}
	dial := tr.DialContext
	if dial == nil {
		return
	}
	defaultWarmer.open(addr, DefaultConnectTimeout, dial)
}

// warmAddr is the host:port a request to rawURL dials directly, and false
// when it is not known: a URL that does not parse, a scheme other than
// http and https, a host that is not plain ASCII (the transport converts
// those first), or a proxy that serves the URL.
func warmAddr(rawURL string, proxy func(*http.Request) (*url.URL, error)) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", false
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	case u.Scheme == "http":
		port = "80"
	default:
		return "", false
	}
	host := u.Hostname()
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "", false
		}
	}
	if proxy != nil {
		p, err := proxy(&http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}})
		if err != nil || p != nil {
			return "", false
		}
	}
	return net.JoinHostPort(host, port), true
}
