package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// connLog records what a test server saw of its connections.
type connLog struct {
	mu     sync.Mutex
	states map[string][]http.ConnState // by remote address, in order
	seen   chan string                 // remote address of each new connection
	closed chan string
}

func newConnServer(t *testing.T) (*httptest.Server, *connLog) {
	t.Helper()
	l := &connLog{states: map[string][]http.ConnState{}, seen: make(chan string, 16), closed: make(chan string, 16)}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RemoteAddr)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		a := c.RemoteAddr().String()
		l.mu.Lock()
		l.states[a] = append(l.states[a], s)
		l.mu.Unlock()
		switch s {
		case http.StateNew:
			l.seen <- a
		case http.StateClosed:
			l.closed <- a
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, l
}

func (l *connLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.states)
}

// get asks srv through a client dialing with w and returns the remote
// address the server saw the request come from.
func get(t *testing.T, w *warmer, srv *httptest.Server) string {
	t.Helper()
	from, err := fetchFrom(w, srv)
	if err != nil {
		t.Fatal(err)
	}
	return from
}

func fetchFrom(w *warmer, srv *httptest.Server) (string, error) {
	tr := &http.Transport{DialContext: w.DialContext}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func newWarmer() *warmer {
	return &warmer{dial: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, now: time.Now}
}

func waitFor(t *testing.T, c chan string, what string) string {
	t.Helper()
	select {
	case a := <-c:
		return a
	case <-time.After(30 * time.Second):
		t.Fatalf("the server never saw %s", what)
		return ""
	}
}

func TestWarmedConnectionCarriesTheFirstRequest(t *testing.T) {
	srv, log := newConnServer(t)
	w := newWarmer()
	addr := srv.Listener.Addr().String()
	w.open(addr, false, 5*time.Second)
	warmed := waitFor(t, log.seen, "the connection opened ahead")
	if from := get(t, w, srv); from != warmed {
		t.Fatalf("the request came over %s, not the connection opened ahead (%s)", from, warmed)
	}
	if n := log.count(); n != 1 {
		t.Fatalf("the server saw %d connections, want 1", n)
	}
}

// A request that asks while the connection is still being opened waits
// for it instead of dialing a second one.
func TestRequestWaitsForTheConnectionBeingOpened(t *testing.T) {
	srv, log := newConnServer(t)
	release := make(chan struct{})
	var dials atomic.Int32
	w := newWarmer()
	real := w.dial
	w.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		<-release
		return real(ctx, network, addr)
	}
	w.open(srv.Listener.Addr().String(), false, 5*time.Second)
	done := make(chan string, 1)
	go func() {
		from, err := fetchFrom(w, srv)
		if err != nil {
			from = "error: " + err.Error()
		}
		done <- from
	}()
	// The request has taken the spare once none is left to take, while
	// its dial is still held.
	deadline := time.Now().Add(30 * time.Second)
	for {
		w.mu.Lock()
		taken := w.spare == nil
		w.mu.Unlock()
		if taken {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never took the spare being opened")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	warmed := waitFor(t, log.seen, "the connection opened ahead")
	if from := <-done; from != warmed {
		t.Fatalf("the request came over %s, not %s", from, warmed)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d dials, want 1", n)
	}
}

func TestFailedWarmLeavesTheRequestItsOwnDial(t *testing.T) {
	srv, log := newConnServer(t)
	w := newWarmer()
	real := w.dial
	var mu sync.Mutex
	n := 0
	w.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			return nil, errors.New("refused")
		}
		return real(ctx, network, addr)
	}
	w.open(srv.Listener.Addr().String(), false, 5*time.Second)
	// The failed spare is dropped once its dial returns; a request before
	// that takes it, sees the failure and dials itself: either way it
	// succeeds.
	if from := get(t, w, srv); from == "" {
		t.Fatal("no answer")
	}
	if c := log.count(); c != 1 {
		t.Fatalf("the server saw %d connections, want 1", c)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 2 {
		t.Fatalf("%d dials, want the failed warm one and the request's", n)
	}
}

func TestStaleSpareIsClosedNotUsed(t *testing.T) {
	srv, log := newConnServer(t)
	w := newWarmer()
	var mu sync.Mutex
	now := time.Now()
	w.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	w.open(srv.Listener.Addr().String(), false, 5*time.Second)
	warmed := waitFor(t, log.seen, "the connection opened ahead")
	mu.Lock()
	now = now.Add(spareMaxAge)
	mu.Unlock()
	if from := get(t, w, srv); from == warmed {
		t.Fatal("a spare as old as spareMaxAge carried the request")
	}
	if a := waitFor(t, log.closed, "the stale connection closed"); a != warmed {
		t.Fatalf("closed %s, want the stale %s", a, warmed)
	}
}

func TestUnclaimedSpareIsClosed(t *testing.T) {
	srv, log := newConnServer(t)
	w := newWarmer()
	w.open(srv.Listener.Addr().String(), false, 5*time.Second)
	warmed := waitFor(t, log.seen, "the connection opened ahead")
	// Wait for the opening goroutine to arm the expiry, then expire it as
	// its timer would.
	var s *spare
	deadline := time.Now().Add(30 * time.Second)
	for s == nil {
		w.mu.Lock()
		if w.spare != nil && w.spare.timer != nil {
			s = w.spare
		}
		w.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the spare was never armed")
		}
		time.Sleep(time.Millisecond)
	}
	s.timer.Stop()
	w.expire(s)
	if a := waitFor(t, log.closed, "the unclaimed connection closed"); a != warmed {
		t.Fatalf("closed %s, want %s", a, warmed)
	}
	// An expired spare is not offered again.
	if w.take(s.key) != nil {
		t.Fatal("an expired spare is still offered")
	}
}

// A dial whose context ends while the spare is being opened returns at
// once; the spare is closed when its dial finishes.
func TestCancelledDialLeavesNothingOpen(t *testing.T) {
	srv, log := newConnServer(t)
	release := make(chan struct{})
	w := newWarmer()
	real := w.dial
	w.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return real(ctx, network, addr)
	}
	addr := srv.Listener.Addr().String()
	w.open(addr, false, 5*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.DialContext(ctx, "tcp", addr); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	close(release)
	warmed := waitFor(t, log.seen, "the connection opened ahead")
	if a := waitFor(t, log.closed, "the abandoned connection closed"); a != warmed {
		t.Fatalf("closed %s, want %s", a, warmed)
	}
}

func TestWarmAddr(t *testing.T) {
	noProxy := func(*http.Request) (*url.URL, error) { return nil, nil }
	viaProxy := func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy:3128") }
	broken := func(*http.Request) (*url.URL, error) { return nil, errors.New("bad proxy setting") }
	for _, tc := range []struct {
		url     string
		proxy   func(*http.Request) (*url.URL, error)
		want    string
		wantTLS bool
	}{
		{"https://api.example.com/v1", noProxy, "api.example.com:443", true},
		{"http://127.0.0.1:8080/v1", noProxy, "127.0.0.1:8080", false},
		{"http://localhost/v1", nil, "localhost:80", false},
		{"https://[::1]:9443/v1", noProxy, "[::1]:9443", true},
		{"https://api.example.com/v1", viaProxy, "", false},
		{"https://api.example.com/v1", broken, "", false},
		{"ftp://api.example.com/", noProxy, "", false},
		{"ftp://api.example.com:21/", noProxy, "", false},
		{"https://bücher.example/v1", noProxy, "", false},
		{"api.example.com/v1", noProxy, "", false},
		{"://", noProxy, "", false},
	} {
		got, tls, ok := warmAddr(tc.url, tc.proxy)
		if got != tc.want || tls != tc.wantTLS || ok != (tc.want != "") {
			t.Errorf("warmAddr(%q) = %q, %v, %v; want %q, %v", tc.url, got, tls, ok, tc.want, tc.wantTLS)
		}
	}
}

// newTLSServer is a TLS test server answering with the request's remote
// address and protocol, and a warming client that trusts it.
func newTLSServer(t *testing.T, h2 bool) (*httptest.Server, *connLog, *warmer, *http.Client) {
	t.Helper()
	l := &connLog{states: map[string][]http.ConnState{}, seen: make(chan string, 16), closed: make(chan string, 16)}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RemoteAddr+" "+r.Proto)
	}))
	srv.EnableHTTP2 = h2
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			l.mu.Lock()
			l.states[c.RemoteAddr().String()] = append(l.states[c.RemoteAddr().String()], s)
			l.mu.Unlock()
			l.seen <- c.RemoteAddr().String()
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	w := newWarmer()
	hc := warmingHTTPClient(w, 5*time.Second)
	w.tlsConfig = &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	t.Cleanup(hc.CloseIdleConnections)
	return srv, l, w, hc
}

func answer(t *testing.T, hc *http.Client, u string) string {
	t.Helper()
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An https connection opened ahead is past its TLS handshake, and
// HTTP/2 is agreed on it as the transport would.
func TestWarmedTLSConnectionCarriesTheFirstRequest(t *testing.T) {
	for _, h2 := range []bool{true, false} {
		srv, log, w, hc := newTLSServer(t, h2)
		w.open(srv.Listener.Addr().String(), true, 5*time.Second)
		warmed := waitFor(t, log.seen, "the connection opened ahead")
		want := warmed + " HTTP/1.1"
		if h2 {
			want = warmed + " HTTP/2.0"
		}
		if got := answer(t, hc, srv.URL); got != want {
			t.Fatalf("h2 server %v: the server answered %q, want %q", h2, got, want)
		}
		if n := log.count(); n != 1 {
			t.Fatalf("the server saw %d connections, want 1", n)
		}
	}
}

// Without a connection opened ahead, the transport's https dials still
// make the handshake, HTTP/2 included.
func TestTLSDialWithoutWarm(t *testing.T) {
	srv, _, _, hc := newTLSServer(t, true)
	if got := answer(t, hc, srv.URL); !strings.HasSuffix(got, " HTTP/2.0") {
		t.Fatalf("the server answered %q, want HTTP/2", got)
	}
}

// A server whose certificate is not trusted is refused, warmed or not.
func TestTLSRefusesAnUntrustedCertificate(t *testing.T) {
	srv, _, w, hc := newTLSServer(t, true)
	w.tlsConfig = &tls.Config{} // the system's roots, which do not hold the test server's
	w.open(srv.Listener.Addr().String(), true, 5*time.Second)
	for i := 0; i < 2; i++ {
		_, err := hc.Get(srv.URL)
		var unknown x509.UnknownAuthorityError
		if !errors.As(err, &unknown) {
			t.Fatalf("request %d: err = %v, want an unknown authority", i, err)
		}
	}
}

// Warm goes through DefaultHTTPClient's own dial, so that whatever
// observes its dials sees the connection opened ahead too.
func TestWarmDialsThroughTheTransport(t *testing.T) {
	srv, log := newConnServer(t)
	tr := DefaultHTTPClient.Transport.(*http.Transport)
	orig := tr.DialContext
	var mu sync.Mutex
	var dialed []string
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
		return orig(ctx, network, addr)
	}
	t.Cleanup(func() {
		tr.DialContext = orig
		tr.CloseIdleConnections()
	})
	Warm(srv.URL + "/v1")
	warmed := waitFor(t, log.seen, "the connection opened ahead")
	resp, err := DefaultHTTPClient.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != warmed {
		t.Fatalf("the request came over %s, not %s", b, warmed)
	}
	mu.Lock()
	defer mu.Unlock()
	host := strings.TrimPrefix(srv.URL, "http://")
	if len(dialed) != 2 || dialed[0] != host || dialed[1] != host {
		t.Fatalf("dials %v: want the warm one and the request's (which took it), both to %s", dialed, host)
	}
}
