package cli

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/provider/transport"
)

// dialLog records every connection ply opens through the default HTTP
// transport and every DNS query of the Go resolver.
type dialLog struct {
	mu    sync.Mutex
	dials []string
}

func (l *dialLog) add(s string) {
	l.mu.Lock()
	l.dials = append(l.dials, s)
	l.mu.Unlock()
}

func (l *dialLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.dials...)
}

// recordDials makes the provider clients' transport
// (transport.DefaultHTTPClient, which they use when their
// Config.HTTPClient is nil, as in the command) and http.DefaultTransport
// (web_fetch and anything else) dial through a recorder, and turns every
// DNS lookup of the Go resolver into a recorded failure: the fake server
// is on 127.0.0.1, so nothing needs one. Both are restored when the test
// ends, so the test must not run in parallel with others.
func recordDials(t *testing.T) *dialLog {
	t.Helper()
	log := &dialLog{}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	for _, rt := range []http.RoundTripper{http.DefaultTransport, transport.DefaultHTTPClient.Transport} {
		tr, ok := rt.(*http.Transport)
		if !ok {
			t.Fatalf("a default transport is a %T, not an *http.Transport", rt)
		}
		origDial := tr.DialContext
		tr.CloseIdleConnections() // no connection made before the test may be reused
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			log.add(network + " " + addr)
			return dialer.DialContext(ctx, network, addr)
		}
		t.Cleanup(func() {
			tr.CloseIdleConnections()
			tr.DialContext = origDial
		})
	}
	res := net.DefaultResolver
	origPreferGo, origResolverDial := res.PreferGo, res.Dial
	res.PreferGo = true
	res.Dial = func(_ context.Context, network, addr string) (net.Conn, error) {
		log.add("dns " + network + " " + addr)
		return nil, errors.New("this test allows no DNS lookups")
	}
	t.Cleanup(func() { res.PreferGo, res.Dial = origPreferGo, origResolverDial })
	return log
}

// By default ply contacts no host but the configured model endpoint: a
// session that uses every kind of tool makes exactly the scripted requests
// to the fake server, dials nothing else, and leaves nothing derived from
// the network in PLY_HOME.
func TestNoPhoningHome(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.go":   "package main\n\nfunc main() {\n\tprintln(\"hi\") // TODO: say more\n}\n",
		"notes.txt": "nothing to see\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := []fp.Turn{
		{fp.ToolCall("c1", "read_file", `{"file_path":"notes.txt"}`), fp.ToolCall("c2", "list_directory", `{"path":"."}`)},
		{fp.ToolCall("c3", "grep_search", `{"pattern":"TODO"}`), fp.ToolCall("c4", "glob", `{"pattern":"**/*.go"}`)},
		{fp.ToolCall("c5", "edit", mustJSON(map[string]any{"file_path": "main.go",
			"old_string": `println("hi") // TODO: say more`, "new_string": `println("hello")`}))},
		{fp.ToolCall("c6", "write_file", `{"file_path":"new.txt","content":"written\n"}`)},
		{fp.ToolCall("c7", "run_shell_command", `{"command":"echo shell-ran"}`)},
		{fp.Text("Done."), fp.Usage(10, 1)},
	}
	// The calls each turn makes, whose results the next request carries.
	ids := [][]string{{"c1", "c2"}, {"c3", "c4"}, {"c5"}, {"c6"}, {"c7"}, nil}
	srv := fp.New(t, script...)
	dials := recordDials(t)

	r := runPly(t, dir, srv, "", "-y", "-p", "tidy up")
	if r.code != 0 || r.stdout != "Done.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// Exactly the scripted requests, in order, each carrying the results
	// of the previous turn's calls in call order.
	reqs := srv.Requests()
	if len(reqs) != len(script) {
		t.Fatalf("%d requests, want %d", len(reqs), len(script))
	}
	for i, req := range reqs {
		if req.Turn != i || req.Method != http.MethodPost || req.Path != "/chat/completions" {
			t.Fatalf("request %d: turn %d, %s %s", i, req.Turn, req.Method, req.Path)
		}
		if i == 0 {
			continue
		}
		want := ids[i-1]
		msgs := req.Messages
		if len(msgs) < len(want) {
			t.Fatalf("request %d has %d messages", i, len(msgs))
		}
		for k, m := range msgs[len(msgs)-len(want):] {
			if m.Role != "tool" || m.ToolCallID != want[k] || strings.HasPrefix(m.Text(), "Error:") {
				t.Fatalf("request %d: result %d = %s %s %.200q, want the result of %s", i, k, m.Role, m.ToolCallID, m.Text(), want[k])
			}
		}
	}
	if err := srv.CheckPairing(); err != nil {
		t.Fatal(err)
	}
	if got := reqs[len(reqs)-1].Messages; !strings.Contains(got[len(got)-1].Text(), "shell-ran") {
		t.Fatalf("the shell call did not run: %q", got[len(got)-1].Text())
	}

	// Nothing dialled but the fake server.
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	got := dials.all()
	if len(got) == 0 {
		t.Fatal("no dial was recorded: the provider no longer uses http.DefaultTransport, so this test proves nothing; update recordDials")
	}
	for _, d := range got {
		if d != "tcp "+u.Host {
			t.Errorf("dialled %q; only the model endpoint %s may be contacted", d, u.Host)
		}
	}

	checkHome(t, findHome(t), u.Host)
}

// findHome returns the PLY_HOME that runPly made: it lives in one of the
// test's temporary directories, all of which share a parent.
func findHome(t *testing.T) string {
	t.Helper()
	homes, _ := filepath.Glob(filepath.Join(filepath.Dir(t.TempDir()), "*", "home"))
	if len(homes) != 1 {
		t.Fatalf("found PLY_HOME candidates %q, want exactly one (has runPly changed?)", homes)
	}
	return homes[0]
}

// urlRE finds anything shaped like a URL.
var urlRE = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>\\]+`)

// checkHome fails unless PLY_HOME holds only local state (logs; session
// transcripts and their lock files holding a pid, checkpoints) and names no host but the endpoint: no
// update stamps, telemetry ids or caches of remote answers. When ply gains
// another local-only file, add it to allowed.
func checkHome(t *testing.T, home, endpoint string) {
	t.Helper()
	allowed := []string{"logs/ply-*.log", "projects/*/*.jsonl", "projects/*/*.lock",
		// Checkpoints: copies of workspace files, local by nature.
		"checkpoints/*/HEAD", "checkpoints/*/lock", "checkpoints/*/pruned", "checkpoints/*/last-rewind", "checkpoints/*/manifests/*", "checkpoints/*/objects/*/*"}
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(home, path)
		rel = filepath.ToSlash(rel)
		ok := false
		for _, pat := range allowed {
			if m, _ := filepath.Match(pat, rel); m {
				ok = true
			}
		}
		if !ok {
			t.Errorf("unexpected file in PLY_HOME: %s", rel)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range urlRE.FindAllString(string(b), -1) {
			if u, err := url.Parse(s); err != nil || u.Host != endpoint {
				t.Errorf("%s mentions %s; only the endpoint %s may appear", rel, s, endpoint)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}
