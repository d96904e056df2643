package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/telemetry"
)

// runPlyTel is runPly with more environment variables.
func runPlyTel(t *testing.T, dir, home string, srv *fp.Server, extra map[string]string, args ...string) result {
	t.Helper()
	env := map[string]string{
		"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "PLY_HOME": home,
		"PLY_RETRY_DELAY_SCALE": "0.001", "OPENAI_BASE_URL": srv.URL,
	}
	for k, v := range extra {
		env[k] = v
	}
	var out, errb bytes.Buffer
	sio := IO{Stdin: strings.NewReader(""), StdinIsTTY: true, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Cwd: dir}
	code := Main(context.Background(), args, sio)
	return result{out.String(), errb.String(), code}
}

// A headless run with telemetry on exports its spans and metrics before
// it exits, and prints nothing of it on a stream-json stdout or stderr.
func TestTelemetryExportsAHeadlessRun(t *testing.T) {
	var mu sync.Mutex
	bodies := map[string]string{}
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies[r.URL.Path] += string(b)
		mu.Unlock()
	}))
	defer rx.Close()
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.ToolCall("c1", "list_directory", `{"path":"."}`)}, fp.Turn{fp.Text("Done."), fp.Usage(10, 1)})
	r := runPlyTel(t, dir, filepath.Join(t.TempDir(), "home"), srv,
		map[string]string{"PLY_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": rx.URL},
		"-y", "-p", "look around", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("stdout line is not JSON: %q", line)
		}
	}
	if strings.Contains(strings.ToLower(r.stderr), "telemetry") {
		t.Errorf("stderr speaks of telemetry: %q", r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	for path, want := range map[string][]string{
		"/v1/traces":  {telemetry.SpanInteraction, telemetry.SpanRound, telemetry.SpanTool, `"list_directory"`},
		"/v1/metrics": {"ply.token.usage", "ply.tool.duration"},
	} {
		for _, w := range want {
			if !strings.Contains(bodies[path], w) {
				t.Errorf("%s export lacks %s", path, w)
			}
		}
	}
	if strings.Contains(bodies["/v1/traces"], "look around") {
		t.Error("the prompt was exported without logPrompts")
	}
}

// With telemetry off, the OTEL_* variables alone make ply contact no
// collector: the only host dialled is the model's.
func TestTelemetryOffDialsOnlyTheModel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			t.Error("telemetry is off, yet ply connected to the collector")
		}
	}()
	srv := fp.New(t, fp.Turn{fp.Text("Done."), fp.Usage(10, 1)})
	dials := recordDials(t)
	r := runPlyTel(t, t.TempDir(), filepath.Join(t.TempDir(), "home"), srv,
		map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + ln.Addr().String(), "OTEL_SERVICE_NAME": "x"},
		"-p", "hi")
	if r.code != 0 || r.stdout != "Done.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	u, _ := url.Parse(srv.URL)
	for _, d := range dials.all() {
		if d != "tcp "+u.Host {
			t.Errorf("dialled %q with telemetry off", d)
		}
	}
}

// A collector that accepts and never answers delays the exit by at most
// the shutdown bound, and its failure goes to the log file.
func TestTelemetryDeadCollectorDoesNotHoldTheExit(t *testing.T) {
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	home := filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.Text("Done."), fp.Usage(10, 1)})
	began := time.Now()
	r := runPlyTel(t, t.TempDir(), home, srv, map[string]string{
		"PLY_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + hang.Addr().String(),
		"OTEL_EXPORTER_OTLP_TIMEOUT": "600000", // an export alone would wait ten minutes
	}, "-p", "hi")
	took := time.Since(began)
	if r.code != 0 || r.stdout != "Done.\n" || strings.Contains(strings.ToLower(r.stderr), "telemetry") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if limit := telemetry.ShutdownTimeout + 10*time.Second; took > limit {
		t.Errorf("the run took %v with a dead collector, more than %v", took, limit)
	}
	logs, _ := filepath.Glob(filepath.Join(home, "logs", "ply-*.log"))
	var all []byte
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte("telemetry: flushing at exit")) {
		t.Errorf("the log file does not record the failed flush:\n%s", all)
	}
}

func TestTelemetryBadVariableIsNamed(t *testing.T) {
	srv := fp.New(t)
	r := runPlyTel(t, t.TempDir(), filepath.Join(t.TempDir(), "home"), srv,
		map[string]string{"PLY_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_HEADERS": "no-equals"}, "-p", "hi")
	if r.code != 52 || !strings.Contains(r.stderr, "OTEL_EXPORTER_OTLP_HEADERS") {
		t.Errorf("exit %d, stderr %q; want 52 naming the variable", r.code, r.stderr)
	}
	if len(srv.Requests()) != 0 {
		t.Error("the model was asked although the configuration is bad")
	}
}
