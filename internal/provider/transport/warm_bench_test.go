package transport

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// delayProxy forwards connections to target, holding every chunk of bytes
// for d in each direction: a network with a round trip of 2d, as far as
// TLS's handshake and the request go (TCP's own handshake stays instant).
func delayProxy(b *testing.B, target string, d time.Duration) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 64<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				time.Sleep(d)
				if _, err := dst.Write(buf[:n]); err != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		dst.Close()
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go pipe(s, c)
			go pipe(c, s)
		}
	}()
	return ln.Addr().String()
}

// BenchmarkFirstRequestOverLatency is a session's first request over TLS
// on a network with a 20 ms round trip, the request made 30 ms after the
// session starts building (ply's start-up on a slow machine): cold, the
// TLS handshake follows the start-up; warm, it overlapped it.
func BenchmarkFirstRequestOverLatency(b *testing.B) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	b.Cleanup(srv.Close)
	addr := delayProxy(b, srv.Listener.Addr().String(), 10*time.Millisecond)
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				w := newWarmer()
				hc := warmingHTTPClient(w, 5*time.Second)
				w.tlsConfig = &tls.Config{RootCAs: roots}
				if warm {
					w.open(addr, true, 5*time.Second)
				}
				time.Sleep(30 * time.Millisecond) // the rest of start-up
				resp, err := hc.Get("https://" + addr + "/")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				hc.CloseIdleConnections()
			}
		})
	}
}
