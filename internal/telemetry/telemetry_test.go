package telemetry

import (
	"context"
	"iter"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/turn"
)

// rounds replies with each script in turn, then stops.
type rounds struct {
	mu      sync.Mutex
	replies [][]turn.Event
}

func (r *rounds) SendMessageStream(ctx context.Context, _ []llm.Part, _ client.SendType) iter.Seq[turn.Event] {
	r.mu.Lock()
	evs := []turn.Event{turn.Finished{Reason: llm.FinishStop}}
	if len(r.replies) > 0 {
		evs, r.replies = r.replies[0], r.replies[1:]
	}
	r.mu.Unlock()
	return func(yield func(turn.Event) bool) {
		for _, e := range evs {
			if !yield(e) {
				return
			}
		}
	}
}

// tools answers read_file with its secret output, refuses shell, and
// runs a nested loop for agent (a subagent, with no recorder of its own).
type tools struct{ nested func(ctx context.Context) }

func (t tools) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]loop.Outcome, error) {
	out := make([]loop.Outcome, len(calls))
	for i, c := range calls {
		start := time.Now()
		resp := llm.FunctionResponse{ID: c.CallID, Name: c.Name, Output: "SECRET-RESULT"}
		o := loop.Outcome{Args: c.Args}
		switch c.Name {
		case "shell":
			resp.Output, resp.IsError, o.Denied = "denied by policy", true, true
		case "agent":
			t.nested(ctx)
		}
		o.Response, o.Start, o.End = resp, start, time.Now()
		out[i] = o
	}
	return out, nil
}

type recorder struct{ tel loop.Telemetry }

func (recorder) Checkpoint() error           { return nil }
func (recorder) Compressed()                 {}
func (recorder) Keep([]llm.Part)             {}
func (recorder) Cancelled(string)            {}
func (recorder) Round(inbox.Round)           {}
func (r recorder) Telemetry() loop.Telemetry { return r.tel }

type session struct{}

func (session) ID() string    { return "sess-1" }
func (session) Model() string { return "gpt-4o" }
func (session) ModelFacts(model string) (modelinfo.Info, bool) {
	if model == "sub-model" {
		return modelinfo.Info{Prices: modelinfo.Prices{Input: 1, Output: 1}}, true
	}
	return modelinfo.Info{Prices: modelinfo.Prices{Input: 2, Output: 10}}, true
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// runSession runs one interaction of two rounds: the first retried once
// for a rate limit, then asking for read_file (ok), shell (refused) and
// agent (a subagent's loop of one round); the second answering.
func runSession(t testing.TB, p *Provider) {
	t.Helper()
	rs := &rounds{replies: [][]turn.Event{
		{
			turn.Retry{Attempt: 1, Class: "rate_limit", Reason: "429"},
			&turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: `{"path":"SECRET-ARGS"}`},
			&turn.ToolCallRequest{CallID: "c2", Name: "shell", Args: `{"command":"rm -rf /"}`},
			&turn.ToolCallRequest{CallID: "c3", Name: "agent", Args: `{}`},
			turn.Finished{Reason: llm.FinishToolCalls, Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 100}},
		},
		{turn.Finished{Reason: llm.FinishStop, Usage: &llm.Usage{InputTokens: 2000, OutputTokens: 50}}},
	}}
	nested := func(ctx context.Context) {
		sub := &rounds{replies: [][]turn.Event{{turn.Finished{Reason: llm.FinishStop, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 1}}}}}
		loop.Run(ctx, loop.Config{Rounds: sub, Tools: tools{}}, loop.Input{Parts: []llm.Part{{Text: "SUB-PROMPT"}}, Type: client.UserQuery, Model: "sub-model"})
	}
	res := loop.Run(context.Background(), loop.Config{Rounds: rs, Tools: tools{nested: nested}, Recorder: recorder{p.Session(session{})}},
		loop.Input{Parts: []llm.Part{{Text: "SECRET-PROMPT"}}, Type: client.UserQuery})
	if res.Stop != loop.Done {
		t.Fatalf("loop ended %+v", res)
	}
}

func start(t *testing.T, s settings.Telemetry, vars map[string]string) *Provider {
	t.Helper()
	p, err := Start(Config{Settings: s, Getenv: env(vars), Version: "1.2.3"})
	if err != nil || p == nil {
		t.Fatalf("Start = %v, %v", p, err)
	}
	return p
}

func shutdown(t *testing.T, p *Provider) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestExportsSpansAndMetrics(t *testing.T) {
	rx := newReceiver(t)
	p := start(t, settings.Telemetry{Enabled: true, Endpoint: rx.srv.URL}, map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS": "x-team=ply%20fleet",
		"OTEL_SERVICE_NAME":          "ci-agents",
		"OTEL_RESOURCE_ATTRIBUTES":   "deployment.environment=ci",
	})
	runSession(t, p)
	shutdown(t, p)
	spans, metrics, raw := rx.snapshot()

	if got := rx.headers.Get("x-team"); got != "ply fleet" {
		t.Errorf("x-team header = %q", got)
	}
	for _, ct := range rx.types {
		if ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
	}
	byName := map[string][]rxSpan{}
	byID := map[string]rxSpan{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
		byID[s.SpanID] = s
	}
	if len(byName[SpanInteraction]) != 2 || len(byName[SpanRound]) != 3 || len(byName[SpanTool]) != 3 {
		t.Fatalf("spans: %d interactions, %d rounds, %d tools; want 2, 3, 3", len(byName[SpanInteraction]), len(byName[SpanRound]), len(byName[SpanTool]))
	}
	var top rxSpan
	for _, s := range byName[SpanInteraction] {
		if s.ParentSpanID == "" {
			top = s
			continue
		}
		if parent := byID[s.ParentSpanID]; parent.Name != SpanRound {
			t.Errorf("the subagent's interaction's parent is %q, want a round", parent.Name)
		}
		if v, _ := s.Attributes.get("gen_ai.request.model"); v != "sub-model" {
			t.Errorf("the subagent's interaction names the model %q, want its own, sub-model", v)
		}
	}
	subRounds := 0
	for _, s := range byName[SpanRound] {
		if v, _ := s.Attributes.get("gen_ai.request.model"); v == "sub-model" {
			subRounds++
		}
	}
	if subRounds != 1 {
		t.Errorf("%d rounds name the subagent's model, want 1", subRounds)
	}
	if v, _ := top.Resource.get("service.name"); v != "ci-agents" {
		t.Errorf("service.name = %q", v)
	}
	if v, _ := top.Resource.get("deployment.environment"); v != "ci" {
		t.Errorf("deployment.environment = %q", v)
	}
	if v, _ := top.Attributes.get("session.id"); v != "sess-1" {
		t.Errorf("session.id = %q", v)
	}
	if v, _ := top.Attributes.get("ply.stop"); v != "done" {
		t.Errorf("ply.stop = %q", v)
	}
	if v, _ := top.Attributes.get("ply.tool_calls"); v != "3" {
		t.Errorf("ply.tool_calls = %q", v)
	}
	first := false
	for _, r := range byName[SpanRound] {
		if r.TraceID != top.TraceID {
			t.Errorf("round in trace %s, want %s", r.TraceID, top.TraceID)
		}
		if n, _ := r.Attributes.get("ply.round"); n == "1" && r.ParentSpanID == top.SpanID {
			first = true
			if v, _ := r.Attributes.get("gen_ai.usage.input_tokens"); v != "1000" {
				t.Errorf("round 1 input tokens = %q", v)
			}
			if v, _ := r.Attributes.get("ply.cost_usd"); v != "0.003" {
				t.Errorf("round 1 cost = %q, want 0.003", v)
			}
			if len(r.Events) != 1 || r.Events[0].Name != "retry" {
				t.Errorf("round 1 events = %+v, want one retry", r.Events)
			} else if c, _ := r.Events[0].Attributes.get("class"); c != "rate_limit" {
				t.Errorf("retry class = %q", c)
			}
		}
	}
	if !first {
		t.Error("no first round under the interaction")
	}
	outcomes := map[string]string{}
	for _, s := range byName[SpanTool] {
		name, _ := s.Attributes.get("gen_ai.tool.name")
		outcomes[name], _ = s.Attributes.get("ply.tool.outcome")
		parent := byID[s.ParentSpanID]
		if n, _ := parent.Attributes.get("ply.round"); parent.Name != SpanRound || n != "1" || parent.ParentSpanID != top.SpanID {
			t.Errorf("tool %s's parent is %q round %s, want the interaction's first round", name, parent.Name, n)
		}
		if s.Start == "0" || s.End < s.Start {
			t.Errorf("tool %s runs from %s to %s", name, s.Start, s.End)
		}
		if name == "shell" && s.Status.Code != 2 {
			t.Errorf("refused call's status = %d, want error (2)", s.Status.Code)
		}
	}
	if outcomes["read_file"] != "ok" || outcomes["shell"] != "denied" || outcomes["agent"] != "ok" {
		t.Errorf("outcomes = %v", outcomes)
	}

	sumOf := func(name string, want map[string]string) (total float64, found bool) {
		for _, pt := range metrics[name] {
			ok := true
			for k, v := range want {
				if got, _ := pt.Attributes.get(k); got != v {
					ok = false
				}
			}
			if !ok {
				continue
			}
			found = true
			switch {
			case pt.AsInt != "":
				n, _ := time.ParseDuration(pt.AsInt + "ns")
				total += float64(n)
			case pt.AsDouble != nil:
				total += *pt.AsDouble
			case pt.Count != "":
				n, _ := time.ParseDuration(pt.Count + "ns")
				total += float64(n)
			}
		}
		return total, found
	}
	for _, c := range []struct {
		name  string
		attrs map[string]string
		want  float64
	}{
		{"ply.token.usage", map[string]string{"type": "input", "model": "gpt-4o"}, 3000},
		{"ply.token.usage", map[string]string{"type": "input", "model": "sub-model"}, 10},
		{"ply.token.usage", map[string]string{"type": "output"}, 151},
		{"ply.rounds", nil, 3},
		{"ply.retries", map[string]string{"class": "rate_limit"}, 1},
		{"ply.refusals", map[string]string{"kind": "tool", "tool": "shell"}, 1},
		{"ply.tool.duration", map[string]string{"tool": "read_file", "outcome": "ok"}, 1}, // the count
	} {
		if got, ok := sumOf(c.name, c.attrs); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.attrs, got, ok, c.want)
		}
	}
	if cost, _ := sumOf("ply.cost.usage", nil); cost < 0.0075105 || cost > 0.0075115 {
		t.Errorf("ply.cost.usage = %v, want 0.007511 (3000+4500 micro-dollars, and 11 at the subagent's model's prices)", cost)
	}
	// Contents stay home unless logPrompts is on.
	for _, body := range raw {
		for _, secret := range []string{"SECRET-PROMPT", "SECRET-ARGS", "SECRET-RESULT", "SUB-PROMPT", "rm -rf"} {
			if strings.Contains(body, secret) {
				t.Errorf("export holds %q without logPrompts", secret)
			}
		}
	}
}

func TestLogPromptsExportsContents(t *testing.T) {
	rx := newReceiver(t)
	p := start(t, settings.Telemetry{Enabled: true, Endpoint: rx.srv.URL, LogPrompts: true}, nil)
	runSession(t, p)
	shutdown(t, p)
	spans, _, _ := rx.snapshot()
	var prompt, args, result bool
	for _, s := range spans {
		if v, _ := s.Attributes.get("ply.prompt"); v == "SECRET-PROMPT" {
			prompt = true
		}
		if v, _ := s.Attributes.get("ply.tool.arguments"); strings.Contains(v, "SECRET-ARGS") {
			args = true
		}
		if v, _ := s.Attributes.get("ply.tool.result"); v == "SECRET-RESULT" {
			result = true
		}
	}
	if !prompt || !args || !result {
		t.Errorf("with logPrompts: prompt %v, arguments %v, result %v; want all", prompt, args, result)
	}
}

// refuseConnections is a listener that fails the test if anything
// connects to it.
func refuseConnections(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			t.Errorf("telemetry is off, yet something connected to the collector")
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestOffBuildsNothingAndConnectsNowhere(t *testing.T) {
	url := refuseConnections(t)
	for name, c := range map[string]struct {
		s    settings.Telemetry
		vars map[string]string
	}{
		"default":            {settings.Telemetry{Endpoint: url}, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url}},
		"OTEL_SDK_DISABLED":  {settings.Telemetry{Enabled: true, Endpoint: url}, map[string]string{"OTEL_SDK_DISABLED": "true"}},
		"PLY_TELEMETRY=0":    {settings.Telemetry{Enabled: true, Endpoint: url}, map[string]string{"PLY_TELEMETRY": "0"}},
		"bad env when off":   {settings.Telemetry{}, map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "broken"}},
		"logPrompts without": {settings.Telemetry{LogPrompts: true, Endpoint: url}, nil},
	} {
		p, err := Start(Config{Settings: c.s, Getenv: env(c.vars)})
		if err != nil || p != nil {
			t.Errorf("%s: Start = %v, %v; want nothing built", name, p, err)
			continue
		}
		if tel := p.Session(session{}); tel != nil {
			t.Errorf("%s: a session's telemetry is %v, want none", name, tel)
		}
		runSession(t, p)
		if err := p.Shutdown(context.Background()); err != nil {
			t.Errorf("%s: Shutdown of nothing = %v", name, err)
		}
	}
}

func TestPlyTelemetryTurnsItOn(t *testing.T) {
	rx := newReceiver(t)
	p := start(t, settings.Telemetry{}, map[string]string{"PLY_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": rx.srv.URL + "/"})
	runSession(t, p)
	shutdown(t, p)
	if spans, _, _ := rx.snapshot(); len(spans) == 0 {
		t.Error("PLY_TELEMETRY=1 exported no span")
	}
}

func TestBadSettingsAreNamed(t *testing.T) {
	for vars, want := range map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS=novalue":  "OTEL_EXPORTER_OTLP_HEADERS",
		"OTEL_EXPORTER_OTLP_ENDPOINT=ftp://x": `"ftp://x/v1/traces" is not an http or https URL`,
		"OTEL_EXPORTER_OTLP_TIMEOUT=soon":     "OTEL_EXPORTER_OTLP_TIMEOUT",
		"OTEL_RESOURCE_ATTRIBUTES=a":          "OTEL_RESOURCE_ATTRIBUTES",
	} {
		k, v, _ := strings.Cut(vars, "=")
		_, err := Start(Config{Settings: settings.Telemetry{Enabled: true}, Getenv: env(map[string]string{k: v})})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to name %s", vars, err, want)
		}
	}
}

// A collector that accepts and never answers, or one that is not there,
// holds shutdown up no longer than its deadline.
func TestShutdownIsBoundedWhenTheCollectorIsDown(t *testing.T) {
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneURL := "http://" + gone.Addr().String()
	gone.Close()
	for name, url := range map[string]string{"hanging": "http://" + hang.Addr().String(), "gone": goneURL} {
		p := start(t, settings.Telemetry{Enabled: true, Endpoint: url}, nil)
		runSession(t, p)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		began := time.Now()
		err := p.Shutdown(ctx)
		took := time.Since(began)
		cancel()
		if err == nil {
			t.Errorf("%s: Shutdown = nil, want the export's failure", name)
		}
		if took > 5*time.Second {
			t.Errorf("%s: Shutdown took %v past a 300ms deadline", name, took)
		}
	}
}

func settingsOn(endpoint string) settings.Telemetry {
	return settings.Telemetry{Enabled: true, Endpoint: endpoint}
}

// What the SDK itself reports (here, a bad OTEL_METRIC_EXPORT_INTERVAL,
// which it reads from the process's environment) goes to ply's log, not
// to stderr.
func TestSDKMessagesGoToTheLog(t *testing.T) {
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "soon")
	rx := newReceiver(t)
	var buf strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := Start(Config{Settings: settingsOn(rx.srv.URL), Getenv: env(nil), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	shutdown(t, p)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(buf.String(), "OTEL_METRIC_EXPORT_INTERVAL") {
		t.Errorf("the log does not hold the SDK's complaint:\n%s", buf.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *strings.Builder
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Even with logPrompts, a credential ply knows never leaves in an
// export: contents pass through the same redaction as ply's output.
func TestLogPromptsRedactsKnownSecrets(t *testing.T) {
	rx := newReceiver(t)
	p, err := Start(Config{Settings: settings.Telemetry{Enabled: true, Endpoint: rx.srv.URL, LogPrompts: true}, Getenv: env(nil),
		Redact: func(s string) string { return strings.ReplaceAll(s, "SECRET", "[redacted]") }})
	if err != nil {
		t.Fatal(err)
	}
	runSession(t, p)
	shutdown(t, p)
	_, _, raw := rx.snapshot()
	all := strings.Join(raw, "\n")
	if strings.Contains(all, "SECRET") || !strings.Contains(all, "[redacted]-PROMPT") || !strings.Contains(all, "[redacted]-RESULT") {
		t.Errorf("exported contents were not redacted:\n%.2000s", all)
	}
}
