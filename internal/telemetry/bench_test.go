package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/turn"
)

// benchLoop runs b.N interactions of two rounds each (one tool call,
// then an answer) and reports the cost per round.
func benchLoop(b *testing.B, p *Provider) {
	rec := recorder{p.Session(session{})}
	in := loop.Input{Parts: []llm.Part{{Text: "prompt"}}, Type: client.UserQuery}
	b.ReportAllocs()
	for b.Loop() {
		rs := &rounds{replies: [][]turn.Event{
			{&turn.ToolCallRequest{CallID: "c1", Name: "read_file", Args: `{}`},
				turn.Finished{Reason: llm.FinishToolCalls, Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 100}}},
			{turn.Finished{Reason: llm.FinishStop, Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 10}}},
		}}
		loop.Run(context.Background(), loop.Config{Rounds: rs, Tools: tools{}, Recorder: rec}, in)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/round")
}

// BenchmarkRoundTelemetryOff is the loop with telemetry off: the
// baseline the On benchmark is compared with.
func BenchmarkRoundTelemetryOff(b *testing.B) { benchLoop(b, nil) }

// BenchmarkRoundTelemetryOn is the loop exporting to a loopback
// collector (spans batched, metrics aggregated in memory).
func BenchmarkRoundTelemetryOn(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	p, err := Start(Config{Settings: settings.Telemetry{Enabled: true, Endpoint: srv.URL}, Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	benchLoop(b, p)
}
