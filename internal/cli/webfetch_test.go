package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestWebFetchAndReadManyInASession runs web_fetch and read_many_files as
// ply offers them: the user's settings allow the test's loopback page
// server, another loopback address stays refused, the prompt about the
// page goes to the model in a separate request, and only its answer
// reaches the conversation.
func TestWebFetchAndReadManyInASession(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Ply Test Page</title></head><body><h1>Release notes</h1><p>Version <b>4.2</b> adds streaming.</p></body></html>`)
	}))
	defer page.Close()
	refused := strings.Replace(page.URL, "127.0.0.1", "[::1]", 1)

	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFile(t, filepath.Join(home, "settings.json"), `{"webFetch":{"allowPrivate":["127.0.0.1"]}}`, 0o644)
	writeFile(t, filepath.Join(dir, "src", "a.go"), "package a\n", 0o644)
	writeFile(t, filepath.Join(dir, "src", "b.go"), "package b\n", 0o644)

	srv := fp.NewServer(
		fp.Turn{
			fp.ToolCall("w1", "web_fetch", mustJSON(map[string]string{"url": page.URL + "/notes", "prompt": "which version adds streaming?"})),
			fp.ToolCall("w2", "web_fetch", mustJSON(map[string]string{"url": refused, "prompt": "anything"})),
		},
		fp.Turn{fp.When("Version **4.2** adds streaming"), fp.Text("Version 4.2 adds streaming.")},
		fp.Turn{fp.When("Version 4.2 adds streaming."), fp.ToolCall("r1", "read_many_files", `{"paths":["src"]}`)},
		fp.Turn{fp.Text("done")},
	)
	defer func() {
		srv.Close()
		for _, f := range srv.Failures() {
			t.Errorf("fakeprovider: %s", f)
		}
	}()
	r := runPlyHome(t, dir, home, srv, "-y", "-p", "check the notes")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (main, asker, main, main)", len(reqs))
	}
	// The asker's request has the page as markdown and the prompt, and
	// nothing of the conversation.
	var ask fp.Request
	for _, q := range reqs {
		if len(q.Messages) > 0 && strings.Contains(q.Messages[len(q.Messages)-1].Text(), "which version adds streaming?") {
			ask = q
		}
	}
	if ask.Messages == nil {
		t.Fatal("no request applied the prompt to the page")
	}
	if got := ask.Messages[len(ask.Messages)-1].Text(); !strings.Contains(got, "# Release notes") {
		t.Errorf("asker prompt lacks the page as markdown:\n%s", got)
	}
	for _, m := range ask.Messages {
		if strings.Contains(m.Text(), "check the notes") {
			t.Errorf("the asker request carries the conversation: %q", m.Text())
		}
	}
	results := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Text()
		}
	}
	if s := results["w1"]; !strings.Contains(s, "Version 4.2 adds streaming.") || strings.Contains(s, "<b>") {
		t.Errorf("w1 result = %q, want the model's answer", s)
	}
	if s := strings.ToLower(results["w2"]); !strings.Contains(s, "refus") && !strings.Contains(s, "not allowed") {
		t.Errorf("w2 (loopback, not allowed) result = %q, want a refusal", results["w2"])
	}
	if s := results["r1"]; !strings.Contains(s, "package a") || !strings.Contains(s, "package b") {
		t.Errorf("read_many_files result = %q, want both files", s)
	}
}

// A project's webFetch.allowPrivate is ignored, with a warning: a cloned
// repository cannot open web_fetch to the machine's private network.
func TestWebFetchAllowPrivateFromProjectIsIgnored(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "internal page")
	}))
	defer page.Close()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".ply", "settings.json"), `{"webFetch":{"allowPrivate":["127.0.0.1"]}}`, 0o644)
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("w1", "web_fetch", mustJSON(map[string]string{"url": page.URL, "prompt": "what is it?"}))},
		fp.Turn{fp.Text("done")},
	)
	// Even a trusted project may not open web_fetch to private addresses.
	r := runPly(t, dir, srv, "", "--trust-workspace", "-y", "-p", "fetch")
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "webFetch.allowPrivate is ignored") {
		t.Errorf("no warning:\n%s", r.stderr)
	}
	if got := strings.ToLower(toolResults(srv)["w1"]); !strings.Contains(got, "allowprivate") {
		t.Errorf("w1 = %q, want the refusal naming the setting", got)
	}
}

// In the default mode a headless run, which has nobody to ask, does not
// fetch: the page server sees no request, and the model is told why,
// with the whole URL. (Without an allow rule for some fetches such a run
// does not offer web_fetch at all.)
func TestWebFetchIsNotAutoApprovedInDefaultMode(t *testing.T) {
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "page")
	}))
	defer page.Close()
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFile(t, filepath.Join(home, "settings.json"), `{"webFetch":{"allowPrivate":["127.0.0.1"]}}`, 0o644)
	u := page.URL + "/leak?data=c2VjcmV0"
	for _, mode := range []string{"default", "auto-edit"} {
		srv := fp.New(t,
			fp.Turn{fp.ToolCall("w1", "web_fetch", mustJSON(map[string]string{"url": u, "prompt": "p"}))},
			fp.Turn{fp.Text("done")},
		)
		r := runPlyHome(t, dir, home, srv, "--approval-mode", mode, "--allowed-tools", "WebFetch(domain:example.com)", "-o", "stream-json", "-p", "fetch")
		if r.code != 0 {
			t.Fatalf("%s: exit %d stderr:\n%s", mode, r.code, r.stderr)
		}
		if got := toolResults(srv)["w1"]; !strings.Contains(got, u) {
			t.Errorf("%s: the model was not told which URL was refused: %q", mode, got)
		}
		if !strings.Contains(r.stdout, `"permission_denials":[{"tool_name":"web_fetch"`) {
			t.Errorf("%s: no permission denial in the result:\n%s", mode, r.stdout)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the page was fetched %d times without approval", n)
	}
}
