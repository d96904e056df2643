package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// searxng answers every search with one result and counts the searches.
func searxng(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, `{"query":"q","results":[{"url":"https://go.dev/doc/","title":"Go docs","content":"Documentation for Go."}]}`)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func writeSettings(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestWebSearchOfferedOnlyWhenConfigured(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	r := runPly(t, t.TempDir(), srv, "", "-y", "-p", "hi")
	if r.code != 0 || strings.Contains(string(srv.Requests()[0].Raw), `"web_search"`) {
		t.Errorf("web_search offered without a backend (exit %d)", r.code)
	}

	search, n := searxng(t)
	home := t.TempDir()
	writeSettings(t, home, `{"tools": {"webSearch": {"provider": "searxng", "baseUrl": "`+search.URL+`"}}}`)
	srv = fp.New(t,
		fp.Turn{fp.ToolCall("c1", "web_search", `{"query":"go docs"}`)},
		fp.Turn{fp.When("Documentation for Go."), fp.Text("found it")},
	)
	r = runPlyHome(t, t.TempDir(), home, srv, "-y", "-p", "search")
	if r.code != 0 || !strings.Contains(r.stdout, "found it") || n.Load() != 1 {
		t.Fatalf("exit %d, %d searches\n%s\n%s", r.code, n.Load(), r.stdout, r.stderr)
	}
	if !strings.Contains(string(srv.Requests()[1].Raw), "https://go.dev/doc/") {
		t.Error("the result lacks the URL")
	}
}

// In default mode a search asks, as a fetch does; a WebSearch allow rule
// lets it run.
func TestWebSearchAsksInDefaultMode(t *testing.T) {
	search, n := searxng(t)
	home := t.TempDir()
	writeSettings(t, home, `{"tools": {"webSearch": {"provider": "searxng", "baseUrl": "`+search.URL+`"}}}`)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "web_search", `{"query":"go docs"}`)},
		fp.Turn{fp.Text("done")},
	)
	r := runPlyHome(t, t.TempDir(), home, srv, "-p", "search")
	if n.Load() != 0 || !strings.Contains(string(srv.Requests()[1].Raw), "approval") {
		t.Errorf("the search ran without approval (%d searches)", n.Load())
	}
	_ = r

	writeSettings(t, home, `{"tools": {"webSearch": {"provider": "searxng", "baseUrl": "`+search.URL+`"}}, "permissions": {"allow": ["WebSearch"]}}`)
	srv = fp.New(t,
		fp.Turn{fp.ToolCall("c1", "web_search", `{"query":"go docs"}`)},
		fp.Turn{fp.When("Documentation for Go."), fp.Text("done")},
	)
	r = runPlyHome(t, t.TempDir(), home, srv, "-p", "search")
	if r.code != 0 || n.Load() != 1 {
		t.Errorf("the allow rule did not let it run: exit %d, %d searches\n%s", r.code, n.Load(), r.stderr)
	}
}

// A project's settings may not pick the backend: the query and the key
// would go where the repository says.
func TestWebSearchProjectSettingsIgnored(t *testing.T) {
	search, n := searxng(t)
	dir := t.TempDir()
	writeSettings(t, filepath.Join(dir, ".ply"), `{"tools": {"webSearch": {"provider": "searxng", "baseUrl": "`+search.URL+`"}}}`)
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	r := runPly(t, dir, srv, "", "-y", "--trust-workspace", "-p", "hi")
	if strings.Contains(string(srv.Requests()[0].Raw), `"web_search"`) || n.Load() != 0 {
		t.Error("a project's settings configured web_search")
	}
	if !strings.Contains(r.stderr, "tools.webSearch is ignored") {
		t.Errorf("no warning: %s", r.stderr)
	}
}

func TestWebSearchMisconfigured(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"tools": {"webSearch": {"provider": "tavily", "apiKeyEnv": "NO_SUCH_KEY_VAR"}}}`)
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	r := runPlyHome(t, t.TempDir(), home, srv, "-y", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "web_search is not offered") || !strings.Contains(r.stderr, "API key") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
