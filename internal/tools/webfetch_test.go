package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fakeAsker records the prompts it gets and answers with a fixed text.
type fakeAsker struct {
	mu      sync.Mutex
	prompts []string
	answer  string
	err     error
}

func (a *fakeAsker) Ask(_ context.Context, prompt string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prompts = append(a.prompts, prompt)
	return a.answer, a.err
}

func (a *fakeAsker) last(t *testing.T) string {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.prompts) == 0 {
		t.Fatal("the Asker was not called")
	}
	return a.prompts[len(a.prompts)-1]
}

// wfServer is a test server on 127.0.0.1 that counts requests.
type wfServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newWFServer(t *testing.T, h http.Handler) *wfServer {
	t.Helper()
	s := &wfServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// wfTest returns web_fetch with the test setting: loopback 127.0.0.1
// allowed, everything else by default.
func wfTest(opts WebFetchOptions) *WebFetch {
	opts.AllowPrivate = append(opts.AllowPrivate, "127.0.0.1")
	return NewWebFetch(opts)
}

func wfExec(t *testing.T, tool *WebFetch, url, prompt string) Result {
	t.Helper()
	return ftExec(t, tool, map[string]string{"url": url, "prompt": prompt})
}

const wfPage = `<!DOCTYPE html>
<html><head><title>Test  Page</title><style>body{color:red}</style>
<script>var secret = "SCRIPT-CONTENT";</script></head>
<body>
<nav><a href="/home">NAV-LINK</a></nav>
<main>
<h1>Title</h1>
<p>Read <a href="/docs/intro">the docs</a> before you start. This paragraph is long enough that the
main element counts as real content and is converted on its own, without the page chrome around it.
More words follow here to pass the threshold of two hundred characters of text.</p>
<ul><li>first item</li><li>second item</li></ul>
<pre><code>go build ./...</code></pre>
</main>
<footer>FOOTER-TEXT</footer>
<script>document.write("LATE-SCRIPT")</script>
</body></html>`

func TestWebFetchConvertsHTMLForTheAsker(t *testing.T) {
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, wfPage)
	}))
	asker := &fakeAsker{answer: "The docs say to run go build."}
	res := wfExec(t, wfTest(WebFetchOptions{Asker: asker}), srv.URL+"/page#section", "How do I build?")
	ftWantOK(t, res)

	prompt := asker.last(t)
	for _, want := range []string{"# Title", "[the docs](" + srv.URL + "/docs/intro)", "- first item", "go build ./...",
		"Page title: Test Page", "Request: How do I build?", "Page URL: " + srv.URL + "/page"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	for _, noise := range []string{"SCRIPT-CONTENT", "LATE-SCRIPT", "color:red", "NAV-LINK", "FOOTER-TEXT", "<p>", "#section"} {
		if strings.Contains(prompt, noise) {
			t.Errorf("prompt contains noise %q:\n%s", noise, prompt)
		}
	}
	if !strings.Contains(res.Output, "The docs say to run go build.") || !strings.Contains(res.Output, "Source: "+srv.URL+"/page") {
		t.Errorf("output = %q", res.Output)
	}
	if !strings.HasPrefix(res.Display, "Fetched ") || !strings.HasSuffix(res.Display, " B from 127.0.0.1") {
		t.Errorf("display = %q", res.Display)
	}
}

func TestWebFetchWithoutAskerReturnsContent(t *testing.T) {
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, wfPage)
	}))
	res := wfExec(t, wfTest(WebFetchOptions{MaxContentChars: 60}), srv.URL, "anything")
	ftWantOK(t, res)
	for _, want := range []string{"No model is configured", "untrusted", "# Title", "cut at 60 characters"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "second item") {
		t.Errorf("content was not capped:\n%s", res.Output)
	}
}

func TestWebFetchAskerFailureFallsBackToContent(t *testing.T) {
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Notes\n\nplain markdown")
	}))
	res := wfExec(t, wfTest(WebFetchOptions{Asker: &fakeAsker{err: errors.New("model overloaded")}}), srv.URL, "summarise")
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "model overloaded") || !strings.Contains(res.Output, "# Notes\n\nplain markdown") {
		t.Errorf("output = %q", res.Output)
	}
}

func TestWebFetchTextTypes(t *testing.T) {
	cases := []struct {
		name, ctype string
		body        []byte
		want        string
		errType     string
	}{
		{"json", "application/json", []byte(`{"a": [1, 2]}`), `{"a": [1, 2]}`, ""},
		{"problem json", "application/problem+json", []byte(`{"title":"x"}`), `{"title":"x"}`, ""},
		{"latin1", "text/plain; charset=iso-8859-1", []byte("caf\xe9"), "café", ""},
		{"utf8 after ascii", "text/plain", append(bytes.Repeat([]byte("a"), 2000), "é"...), "aé", ""},
		{"text as octet-stream", "application/octet-stream", []byte("just text\n"), "just text", ""},
		{"png", "image/png", []byte("\x89PNG\r\n\x1a\n\x00\x00"), "", "WEB_FETCH_UNSUPPORTED_CONTENT"},
		{"pdf", "application/pdf", []byte("%PDF-1.7\n"), "", "WEB_FETCH_UNSUPPORTED_CONTENT"},
		{"binary octet-stream", "application/octet-stream", []byte{0, 1, 2, 3, 0xff}, "", "WEB_FETCH_UNSUPPORTED_CONTENT"},
		{"sniffed html", "", []byte("<html><body><h2>Sniffed</h2></body></html>"), "## Sniffed", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = nil
				if c.ctype != "" {
					w.Header().Set("Content-Type", c.ctype)
				}
				w.Write(c.body)
			}))
			res := wfExec(t, wfTest(WebFetchOptions{}), srv.URL, "p")
			if c.errType != "" {
				ftWantError(t, res, c.errType, "cannot read")
				return
			}
			ftWantOK(t, res)
			if !strings.Contains(res.Output, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, res.Output)
			}
		})
	}
}

func TestWebFetchRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/a", http.StatusFound) })
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/chain/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n+1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "arrived") })
	mux.HandleFunc("/to-ok", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect) })
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://files.example/x", http.StatusFound)
	})
	srv := newWFServer(t, mux)
	tool := wfTest(WebFetchOptions{MaxRedirects: 3})

	res := wfExec(t, tool, srv.URL+"/to-ok", "p")
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "arrived") || !strings.Contains(res.Output, "redirected from "+srv.URL+"/to-ok") {
		t.Errorf("output = %q", res.Output)
	}

	ftWantError(t, wfExec(t, tool, srv.URL+"/a", "p"), "WEB_FETCH_REDIRECT_LOOP", "redirect loop", "/a")

	before := srv.hits.Load()
	ftWantError(t, wfExec(t, tool, srv.URL+"/chain/0", "p"), "WEB_FETCH_TOO_MANY_REDIRECTS", "more than 3")
	if got := srv.hits.Load() - before; got != 4 {
		t.Errorf("%d requests for a chain with MaxRedirects 3, want 4", got)
	}

	ftWantError(t, wfExec(t, tool, srv.URL+"/to-ftp", "p"), "WEB_FETCH_BAD_REDIRECT", "ftp")
}

// A redirect to a private address is refused before anything dials it,
// although the first host was allowed.
func TestWebFetchRedirectToPrivateAddressRefused(t *testing.T) {
	var target atomic.Value
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.Load().(string), http.StatusFound)
	}))
	tool := wfTest(WebFetchOptions{})
	var mu sync.Mutex
	var dialed []string
	tool.dialHook = func(_, addr string) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
	}
	for _, to := range []string{"http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]:1/", "http://192.168.0.1:8080/x", "http://[::ffff:10.0.0.1]/"} {
		target.Store(to)
		res := wfExec(t, tool, srv.URL+"/start", "p")
		ftWantError(t, res, "WEB_FETCH_PRIVATE_ADDRESS", "address")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, d := range dialed {
		if !strings.HasPrefix(d, "127.0.0.1:") {
			t.Errorf("dialed %s; only the test server may be dialed", d)
		}
	}
}

func TestWebFetchPrivateAddressRefusedByDefault(t *testing.T) {
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	tool := NewWebFetch(WebFetchOptions{})
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	for _, u := range []string{srv.URL + "/", "http://localhost" + port + "/", "http://LOCALHOST." + port, "http://app.localhost" + port, "http://[::1]" + port, "http://0.0.0.0" + port} {
		res := wfExec(t, tool, u, "p")
		ftWantError(t, res, "WEB_FETCH_PRIVATE_ADDRESS", "Refusing to fetch", "public internet addresses")
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("the server was hit %d times", n)
	}
}

// The dial-time check judges the address a name resolved to: a host name
// that is no literal address and no localhost name still cannot reach a
// loopback listener. The transport's dial is called directly, as it
// would be for a public-looking name that resolves to 127.0.0.1.
func TestWebFetchDialChecksResolvedAddress(t *testing.T) {
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	addr := strings.TrimPrefix(srv.URL, "http://")
	port := addr[strings.LastIndex(addr, ":"):]
	tool := NewWebFetch(WebFetchOptions{})
	for _, a := range []string{addr, "localhost" + port} {
		conn, err := tool.dialContext(context.Background(), "tcp", a)
		if err == nil {
			conn.Close()
			t.Fatalf("dial %s succeeded", a)
		}
		var priv *privateAddrError
		if !errors.As(err, &priv) || priv.why != "loopback" {
			t.Errorf("dial %s: %v, want a loopback refusal", a, err)
		}
	}
	// Allowed by name: the dial goes through.
	named := NewWebFetch(WebFetchOptions{AllowPrivate: []string{"localhost"}})
	conn, err := named.dialContext(context.Background(), "tcp4", "localhost"+port)
	if err != nil {
		t.Fatalf("dial with localhost allowed: %v", err)
	}
	conn.Close()
}

func TestWebFetchBadURLs(t *testing.T) {
	tool := wfTest(WebFetchOptions{})
	for _, u := range []string{"", "   ", "ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)",
		"http://", "https:///path", "example.com/docs", "http://[::1", "http://example.com:99999/", "http://example.com:0/",
		"mailto:someone@example.com", "//example.com/x", "http://exa mple.com/"} {
		res := wfExec(t, tool, u, "p")
		ftWantError(t, res, "INVALID_TOOL_PARAMS")
	}
	ftWantError(t, wfExec(t, tool, "example.com/docs", "p"), "INVALID_TOOL_PARAMS", "https://example.com/docs")
	ftWantError(t, wfExec(t, tool, "https://example.com", " "), "INVALID_TOOL_PARAMS", "prompt")
	ftWantError(t, ftExec(t, tool, `[1]`), "INVALID_TOOL_PARAMS")
}

func TestWebFetchHTTPErrors(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><body><h1>Not here</h1><p>The page was moved.</p><script>x()</script></body></html>")
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, strings.Repeat("stack trace line\n", 500), http.StatusInternalServerError)
	})
	mux.HandleFunc("/choices", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusMultipleChoices) })
	srv := newWFServer(t, mux)
	tool := wfTest(WebFetchOptions{})

	res := wfExec(t, tool, srv.URL+"/missing", "p")
	ftWantError(t, res, "WEB_FETCH_HTTP_ERROR", "404 Not Found", "Not here", "The page was moved.")
	if strings.Contains(res.Output, "x()") || res.Display != "HTTP 404 from 127.0.0.1" {
		t.Errorf("output %q, display %q", res.Output, res.Display)
	}
	res = wfExec(t, tool, srv.URL+"/broken", "p")
	ftWantError(t, res, "WEB_FETCH_HTTP_ERROR", "500 Internal Server Error", "stack trace line", "...")
	if len(res.Output) > 1000 {
		t.Errorf("error excerpt not capped: %d bytes", len(res.Output))
	}
	ftWantError(t, wfExec(t, tool, srv.URL+"/choices", "p"), "WEB_FETCH_UNEXPECTED_STATUS", "300")
}

// A 50 MB body is cut at the cap without being downloaded or held.
func TestWebFetchHugeBodyIsCapped(t *testing.T) {
	const total = 50 << 20
	var written atomic.Int64
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := bytes.Repeat([]byte("0123456789abcdef\n"), 4096)
		for written.Load() < total {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	tool := wfTest(WebFetchOptions{MaxBodyBytes: 1 << 20, MaxContentChars: 10_000})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := wfExec(t, tool, srv.URL, "p")
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	ftWantOK(t, res)
	if !strings.Contains(res.Output, "larger than 1.0 MB") || !strings.Contains(res.Output, "cut at 10000 characters") {
		t.Errorf("no truncation note:\n%.300s", res.Output)
	}
	if len(res.Output) > 11_000 {
		t.Errorf("output is %d bytes", len(res.Output))
	}
	if !strings.HasSuffix(res.Display, "(truncated)") {
		t.Errorf("display = %q", res.Display)
	}
	if elapsed > 10*time.Second {
		t.Errorf("took %s", elapsed)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 24<<20 {
		t.Errorf("allocated %d MiB for a 1 MiB cap", alloc>>20)
	}
	srv.Close() // wait for the handler to see the closed connection
	if w := written.Load(); w >= total {
		t.Errorf("the server wrote the whole body (%d bytes)", w)
	}
	t.Logf("server wrote %.1f MiB, took %s, allocated %.1f MiB", float64(written.Load())/(1<<20), elapsed,
		float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
}

func TestWebFetchCancelMidBody(t *testing.T) {
	started := make(chan struct{})
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(bytes.Repeat([]byte("x"), 4096))
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	}))
	tool := wfTest(WebFetchOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tool.Execute(ctx, json.RawMessage(`{"url":"`+srv.URL+`","prompt":"p"}`), nil)
		done <- err
	}()
	<-started
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Execute did not return after cancellation")
	}
}

func TestWebFetchTimeout(t *testing.T) {
	t.Parallel()
	srv := newWFServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	tool := wfTest(WebFetchOptions{Timeout: 200 * time.Millisecond})
	start := time.Now()
	ftWantError(t, wfExec(t, tool, srv.URL, "p"), "WEB_FETCH_TIMEOUT", "timed out")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestWebFetchConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	ftWantError(t, wfExec(t, wfTest(WebFetchOptions{}), u, "p"), "WEB_FETCH_FAILED", "refused")
}

func TestWebFetchSchema(t *testing.T) {
	tool := NewWebFetch(WebFetchOptions{})
	if tool.Name() != "web_fetch" || tool.Kind() != KindFetch || !tool.ConcurrencySafe(nil) || tool.Description() == "" {
		t.Fatal("bad metadata")
	}
	wfCheckSchema(t, tool, []string{`{"url":"https://x","prompt":"p"}`},
		[]string{`{"url":"https://x"}`, `{"prompt":"p"}`, `{"url":1,"prompt":"p"}`, `{"url":"u","prompt":"p","x":1}`})
}

// wfCheckSchema compiles tool's schema and checks what it accepts.
func wfCheckSchema(t *testing.T, tool Tool, good, bad []string) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range good {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(g))
		if err := sch.Validate(v); err != nil {
			t.Errorf("schema refuses %s: %v", g, err)
		}
	}
	for _, b := range bad {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(b))
		if err := sch.Validate(v); err == nil {
			t.Errorf("schema accepts %s", b)
		}
	}
}

func TestClassifyAddr(t *testing.T) {
	refused := []string{"127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "100.64.0.1", "100.127.255.255", "0.0.0.0", "0.1.2.3", "224.0.0.1", "255.255.255.255",
		"192.0.2.1", "198.18.0.1", "::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "ff02::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::1",
		"2002:c0a8:101::1", "2001:db8::1", "fec0::1", "64:ff9b:1::1", "2001:0:4136:e378:8000:63bf:80ff:fffe"}
	public := []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "100.128.0.1", "172.32.0.1", "2606:4700::1111",
		"2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"}
	for _, s := range refused {
		if classifyAddr(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s is not refused", s)
		}
	}
	for _, s := range public {
		if why := classifyAddr(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s is refused as %s", s, why)
		}
	}
}

func TestAddrPolicyAllowList(t *testing.T) {
	p := newAddrPolicy([]string{"10.0.0.0/8", "192.168.1.7", "[fd00::1]", "Intranet.Example.", " ", "not a cidr/99"})
	for _, s := range []string{"10.200.3.4", "::ffff:10.0.0.1", "192.168.1.7", "fd00::1"} {
		if err := p.checkHost(s); err != nil {
			t.Errorf("%s refused: %v", s, err)
		}
	}
	for _, s := range []string{"192.168.1.8", "127.0.0.1", "fd00::2", "localhost"} {
		if err := p.checkHost(s); err == nil {
			t.Errorf("%s allowed", s)
		}
	}
	if !p.hostAllowed("intranet.example") || p.hostAllowed("other.example") {
		t.Error("host names are not matched case-insensitively without the trailing dot")
	}
	if err := p.checkDialAddr("h", "10.1.1.1:80"); err != nil {
		t.Error(err)
	}
	if err := p.checkDialAddr("h", "[::1]:80"); err == nil {
		t.Error("::1 allowed at dial")
	}
	if err := p.checkDialAddr("h", "garbage"); err == nil {
		t.Error("unparsable dial address allowed")
	}
	// A localhost name passes the early check when a loopback address is
	// allowed; the dial then judges the real address.
	if err := newAddrPolicy([]string{"127.0.0.1"}).checkHost("localhost"); err != nil {
		t.Error(err)
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 12_345: "12.3 KB", 5 << 20: "5.2 MB"} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %q, want %q", n, got, want)
		}
	}
}
