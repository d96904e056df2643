package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/tools"
)

// startTools starts servers and returns the manager (closed at cleanup)
// and the tools by name.
func startTools(t *testing.T, servers map[string]ServerConfig) (*Manager, map[string]*Tool, []Failure) {
	t.Helper()
	m := Start(context.Background(), servers, testOptions())
	t.Cleanup(func() { _ = m.Close() })
	ts, fails := m.Tools(context.Background())
	byName := map[string]*Tool{}
	for _, x := range ts {
		byName[x.Name()] = x.(*Tool)
	}
	return m, byName, fails
}

func call(t *testing.T, tl *Tool, args string) tools.Result {
	t.Helper()
	if tl == nil {
		t.Fatal("tool missing")
	}
	r, err := tl.Execute(context.Background(), json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("%s: Go error %v", tl.Name(), err)
	}
	return r
}

func TestToolsOverStdioAndHTTP(t *testing.T) {
	m, ts, fails := startTools(t, map[string]ServerConfig{
		"local": stdioServer(t, "local", "stdio"),
		"web":   httpServer(t, "web"),
	})
	if len(fails) != 0 {
		t.Fatalf("failures: %v", fails)
	}
	for _, st := range m.Status(context.Background()) {
		t.Logf("%s: connected and listed in %v", st.Name, st.Elapsed)
	}
	for _, srv := range []string{"local", "web"} {
		t.Run(srv, func(t *testing.T) {
			echo := ts["mcp__"+srv+"__echo"]
			if echo == nil {
				t.Fatalf("no echo tool in %v", keys(ts))
			}
			if echo.Server() != srv || echo.RemoteName() != "echo" || echo.Trusted() {
				t.Errorf("accessors: %q %q %v", echo.Server(), echo.RemoteName(), echo.Trusted())
			}
			if echo.Kind() != tools.KindOther || !echo.ConcurrencySafe(nil) {
				t.Errorf("echo kind = %v, parallel %v; want other (an untrusted readOnlyHint approves nothing) and parallel", echo.Kind(), echo.ConcurrencySafe(nil))
			}
			if fail := ts["mcp__"+srv+"__fail"]; fail.Kind() != tools.KindOther || fail.ConcurrencySafe(nil) {
				t.Errorf("fail kind = %v, parallel %v", fail.Kind(), fail.ConcurrencySafe(nil))
			}
			var schema map[string]any
			if err := json.Unmarshal(echo.Schema(), &schema); err != nil || schema["type"] != "object" {
				t.Errorf("schema %s: %v", echo.Schema(), err)
			}
			if !strings.HasPrefix(echo.Description(), "Echo the text back.") {
				t.Errorf("description %q", echo.Description())
			}
			if ts["mcp__"+srv+"__dotted_name"] == nil {
				t.Errorf("dotted.name not sanitised: %v", keys(ts))
			}
			if d := ts["mcp__"+srv+"__structured"].Description(); !strings.Contains(d, "structured") {
				t.Errorf("empty description not replaced: %q", d)
			}

			if r := call(t, echo, `{"text":"hi"}`); r.IsError || r.Output != "echo: hi" {
				t.Errorf("echo = %+v", r)
			}
			r := call(t, ts["mcp__"+srv+"__image"], `{}`)
			if r.IsError || len(r.Media) != 1 || r.Media[0].MIMEType != "image/png" || !bytes.Equal(r.Media[0].Data, pngData) {
				t.Errorf("image = %+v", r)
			}
			r = call(t, ts["mcp__"+srv+"__fail"], `null`)
			if !r.IsError || r.ErrorType != ErrorTypeTool || r.Output != "the disk is full" {
				t.Errorf("fail = %+v", r)
			}
			r = call(t, ts["mcp__"+srv+"__structured"], ``)
			if r.IsError || !strings.Contains(r.Output, `"count": 3`) {
				t.Errorf("structured = %+v", r)
			}
			r = call(t, ts["mcp__"+srv+"__mixed"], `{}`)
			for _, want := range []string{"first", "resource text", "Resource link: file:///b.txt (b.txt)", "[audio content omitted: audio/wav, 4 bytes]"} {
				if !strings.Contains(r.Output, want) {
					t.Errorf("mixed output %q lacks %q", r.Output, want)
				}
			}
			if r := call(t, ts["mcp__"+srv+"__dotted_name"], `{}`); r.IsError || r.Output != "" {
				t.Errorf("empty content = %+v (the scheduler fills in empty output)", r)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCrashMidCall(t *testing.T) {
	_, ts, fails := startTools(t, map[string]ServerConfig{
		"a": stdioServer(t, "a", "stdio"),
		"b": stdioServer(t, "b", "stdio"),
	})
	if len(fails) != 0 {
		t.Fatalf("failures: %v", fails)
	}
	r := call(t, ts["mcp__a__crash"], `{}`)
	if !r.IsError || r.ErrorType != ErrorTypeServer {
		t.Fatalf("crash = %+v", r)
	}
	t.Logf("crash: %s", r.Output)
	for _, want := range []string{`"a"`, "exit status 2", "panic: crash requested"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("crash output %q lacks %q", r.Output, want)
		}
	}
	if r := call(t, ts["mcp__b__echo"], `{"text":"still here"}`); r.IsError || r.Output != "echo: still here" {
		t.Errorf("other server after crash = %+v", r)
	}
	t0 := time.Now()
	r = call(t, ts["mcp__a__echo"], `{"text":"x"}`)
	if !r.IsError || r.ErrorType != ErrorTypeServer || !strings.Contains(r.Output, "not running") {
		t.Errorf("call to crashed server = %+v", r)
	}
	if d := time.Since(t0); d > 100*time.Millisecond {
		t.Errorf("call to crashed server took %v, want fail-fast", d)
	}
}

func TestStartFailures(t *testing.T) {
	missing := ServerConfig{Name: "missing", ID: "missing", Transport: TransportStdio, Command: "/nonexistent/ply-no-such-server"}
	refused := ServerConfig{Name: "refused", ID: "refused", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"}
	exits := stdioServer(t, "exits", "exit")
	m := Start(context.Background(), map[string]ServerConfig{
		"missing": missing, "refused": refused, "exits": exits,
		"good": stdioServer(t, "good", "stdio"),
		"off":  {Name: "off", Command: "whatever", Disabled: true},
	}, testOptions())
	defer func() { _ = m.Close() }()
	ts, fails := m.Tools(context.Background())
	if len(fails) != 3 {
		t.Fatalf("failures = %v, want 3", fails)
	}
	got := map[string]string{}
	for _, f := range fails {
		got[f.Server] = f.Err.Error()
		t.Logf("%v", f)
	}
	if !strings.Contains(got["missing"], "ply-no-such-server") {
		t.Errorf("missing: %s", got["missing"])
	}
	if !strings.Contains(got["refused"], "127.0.0.1:1") {
		t.Errorf("refused: %s", got["refused"])
	}
	if !strings.Contains(got["exits"], "exit status 3") || !strings.Contains(got["exits"], "cannot open the database") {
		t.Errorf("exits: %s", got["exits"])
	}
	n := 0
	for _, x := range ts {
		if x.(*Tool).Server() != "good" {
			t.Errorf("tool %s from a failed server", x.Name())
		}
		n++
	}
	if n == 0 {
		t.Error("no tools from the good server")
	}
	// Failures are stable, not re-attempted.
	if _, again := m.Tools(context.Background()); len(again) != 3 {
		t.Errorf("second Tools: %v", again)
	}
}

func TestHandshakeTimeout(t *testing.T) {
	opts := testOptions()
	opts.ConnectTimeout = 300 * time.Millisecond
	t0 := time.Now()
	m := Start(context.Background(), map[string]ServerConfig{"hang": stdioServer(t, "hang", "hang")}, opts)
	_, fails := m.Tools(context.Background())
	if len(fails) != 1 || !errors.Is(fails[0].Err, ErrConnectTimeout) {
		t.Fatalf("fails = %v", fails)
	}
	t.Logf("%v", fails[0])
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("timeout and close took %v", d)
	}
}

func TestCallTimeoutAndCancel(t *testing.T) {
	local := stdioServer(t, "local", "stdio")
	local.Timeout = 200 * time.Millisecond
	web := httpServer(t, "web")
	web.Timeout = 200 * time.Millisecond
	_, ts, fails := startTools(t, map[string]ServerConfig{"local": local, "web": web})
	if len(fails) != 0 {
		t.Fatalf("failures: %v", fails)
	}
	for _, srv := range []string{"local", "web"} {
		slow := ts["mcp__"+srv+"__slow"]
		t0 := time.Now()
		r := call(t, slow, `{"ms":10000}`)
		if d := time.Since(t0); d > 2*time.Second {
			t.Errorf("%s: timeout took %v", srv, d)
		}
		if !r.IsError || r.ErrorType != ErrorTypeTimeout {
			t.Errorf("%s: timeout result %+v", srv, r)
		}

		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		slow.srv.cfg.Timeout = time.Minute
		t0 = time.Now()
		_, err := slow.Execute(ctx, json.RawMessage(`{"ms":10000}`), nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancel err = %v", srv, err)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("%s: cancel took %v", srv, d)
		}
		// The server is still fine.
		if r := call(t, ts["mcp__"+srv+"__echo"], `{"text":"ok"}`); r.Output != "echo: ok" {
			t.Errorf("%s: after cancel %+v", srv, r)
		}
	}
}

func TestIncludeExclude(t *testing.T) {
	inc := stdioServer(t, "inc", "stdio")
	inc.IncludeTools = []string{"echo", "fail", "nosuch"}
	inc.ExcludeTools = []string{"fail"}
	exc := httpServer(t, "exc")
	exc.ExcludeTools = []string{"echo"}
	_, ts, _ := startTools(t, map[string]ServerConfig{"inc": inc, "exc": exc})
	var incNames []string
	for n := range ts {
		if strings.HasPrefix(n, "mcp__inc__") {
			incNames = append(incNames, n)
		}
	}
	if len(incNames) != 1 || incNames[0] != "mcp__inc__echo" {
		t.Errorf("include/exclude: %v", incNames)
	}
	if ts["mcp__exc__echo"] != nil || ts["mcp__exc__fail"] == nil {
		t.Errorf("exclude: %v", keys(ts))
	}
}

// TestParallelStart starts two servers that each sleep before serving;
// together they must take well under twice as long as one.
func TestParallelStart(t *testing.T) {
	const delay = 700 * time.Millisecond
	one := func(names ...string) time.Duration {
		servers := map[string]ServerConfig{}
		for _, n := range names {
			servers[n] = stdioServer(t, n, "stdio", "PLY_MCP_TEST_DELAY", delay.String())
		}
		t0 := time.Now()
		m := Start(context.Background(), servers, testOptions())
		if d := time.Since(t0); d > 50*time.Millisecond {
			t.Errorf("Start blocked for %v", d)
		}
		ts, fails := m.Tools(context.Background())
		d := time.Since(t0)
		if len(fails) != 0 || len(ts) == 0 {
			t.Fatalf("fails %v, %d tools", fails, len(ts))
		}
		_ = m.Close()
		return d
	}
	single := one("s1")
	both := one("p1", "p2")
	t.Logf("one server %v, two servers %v", single, both)
	if both > single*17/10 {
		t.Errorf("two servers took %v, one %v: not started in parallel", both, single)
	}
}

func TestCloseEndsCallsAndProcesses(t *testing.T) {
	m, ts, _ := startTools(t, map[string]ServerConfig{"a": stdioServer(t, "a", "stdio")})
	slow := ts["mcp__a__slow"]
	done := make(chan tools.Result, 1)
	go func() {
		r, _ := slow.Execute(context.Background(), json.RawMessage(`{"ms":20000}`), nil)
		done <- r
	}()
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(t0))
	r := <-done
	if !r.IsError || r.ErrorType != ErrorTypeServer {
		t.Errorf("call in flight at Close = %+v", r)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	select {
	case <-slow.srv.proc.exited:
	default:
		t.Error("process still running after Close")
	}
	if r := call(t, ts["mcp__a__echo"], `{}`); !r.IsError || !strings.Contains(r.Output, "closed") {
		t.Errorf("call after Close = %+v", r)
	}
}

func TestList(t *testing.T) {
	servers := map[string]ServerConfig{
		"web":     httpServer(t, "web"),
		"missing": {Name: "missing", ID: "missing", Transport: TransportStdio, Command: "/nonexistent/x"},
		"off":     {Name: "off", ID: "off", Transport: TransportStdio, Command: "x", Disabled: true},
	}
	st := List(context.Background(), servers, testOptions())
	if len(st) != 3 || st[0].Name != "missing" || st[1].Name != "off" || st[2].Name != "web" {
		t.Fatalf("statuses %+v", st)
	}
	if st[0].Connected || st[0].Err == nil || !st[1].Disabled || !st[2].Connected {
		t.Errorf("states %+v", st)
	}
	var echo *ToolInfo
	for i := range st[2].Tools {
		if st[2].Tools[i].Remote == "echo" {
			echo = &st[2].Tools[i]
		}
	}
	if echo == nil || echo.Name != "mcp__web__echo" || echo.Summary != "Echo the text back." || !echo.ReadOnly {
		t.Errorf("echo info %+v", echo)
	}
	var b strings.Builder
	if err := FormatList(&b, st); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"missing (stdio: /nonexistent/x) - failed:", "off (stdio: x) - disabled", "web (http: http://127.0.0.1", "connected, 7 tools", "    mcp__web__echo [read-only] - Echo the text back."} {
		if !strings.Contains(out, want) {
			t.Errorf("FormatList lacks %q:\n%s", want, out)
		}
	}
}
