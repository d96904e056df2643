// Package telemetry exports what ply's sessions do as OpenTelemetry
// traces and metrics, over OTLP/HTTP with JSON bodies, when the user turns
// it on (the "telemetry" block of the user's settings, or PLY_TELEMETRY=1;
// the standard OTEL_* variables say where and how). Off, Start builds
// nothing and ply opens no connection.
//
// It owns the SDK's tracer and meter providers, the exporters, and the
// loop.Telemetry the session core hands its loops: spans of interactions,
// rounds and tool calls, and the metrics beside them. It observes only:
// it never changes, fails or waits on a session's work, and what it cannot
// export goes to the log file. Prompt and tool contents are exported only
// with logPrompts.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/plyhq/ply/internal/settings"
)

// ShutdownTimeout bounds the flush at exit: a collector that is down or
// slow delays ply's exit by at most this long.
const ShutdownTimeout = 3 * time.Second

// scope names ply's instrumentation.
const scope = "github.com/plyhq/ply"

// Config is how Start finds out whether and where to export.
type Config struct {
	// Settings is the user's "telemetry" block.
	Settings settings.Telemetry
	// Getenv reads the environment (PLY_TELEMETRY, OTEL_*).
	Getenv func(string) string
	// Version is ply's, the service.version resource attribute.
	Version string
	// Log takes export errors; nil discards them.
	Log *slog.Logger
	// Redact takes the credentials ply knows out of exported contents
	// (logPrompts), as ply's output is redacted; nil leaves them as
	// they are.
	Redact func(string) string
}

// Provider is telemetry turned on. A nil *Provider is telemetry off: its
// methods do nothing.
type Provider struct {
	tp         *sdktrace.TracerProvider // nil when traces are off
	mp         *sdkmetric.MeterProvider // nil when metrics are off
	tracer     trace.Tracer
	inst       instruments
	logPrompts bool
	redact     func(string) string
}

// Start builds the providers and exporters when telemetry is on, and
// returns nil (having built nothing) when it is off. A bad OTEL_*
// value is an error that names it.
func Start(cfg Config) (*Provider, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if !enabled(cfg.Settings, getenv) {
		return nil, nil
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r, err := resolve(cfg.Settings, getenv)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	res, err := newResource(cfg.Version, getenv)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	if p := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" && p != "http/json" {
		log.Warn("telemetry: only OTLP/HTTP with JSON is spoken; OTEL_EXPORTER_OTLP_PROTOCOL is ignored", "protocol", p)
	}
	// The SDK reports export failures through the global handler, and
	// its other complaints through the global logger (stderr unless set):
	// both to the log file, never the terminal or a protocol stream.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("telemetry: export failed", "err", err) }))
	otel.SetLogger(logr.FromSlogHandler(log.Handler()))
	client := &http.Client{Timeout: r.timeout}
	p := &Provider{logPrompts: cfg.Settings.LogPrompts, redact: cfg.Redact, tracer: tracenoop.NewTracerProvider().Tracer(scope)}
	if p.redact == nil {
		p.redact = func(s string) string { return s }
	}
	var meter metric.Meter = metricnoop.NewMeterProvider().Meter(scope)
	if r.traces != "" {
		exp := &spanExporter{p: &poster{url: r.traces, headers: r.traceHeaders, client: client}}
		p.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		p.tracer = p.tp.Tracer(scope, trace.WithInstrumentationVersion(cfg.Version))
	}
	if r.metrics != "" {
		exp := &metricExporter{p: &poster{url: r.metrics, headers: r.metricHeaders, client: client}}
		p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		meter = p.mp.Meter(scope, metric.WithInstrumentationVersion(cfg.Version))
	}
	if p.inst, err = newInstruments(meter); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	log.Info("telemetry: exporting", "traces", r.traces, "metrics", r.metrics, "logPrompts", p.logPrompts)
	return p, nil
}

// newResource is service.name "ply" and service.version, under
// OTEL_RESOURCE_ATTRIBUTES, under OTEL_SERVICE_NAME.
func newResource(version string, getenv func(string) string) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{attribute.String("service.name", "ply"), attribute.String("service.version", version)}
	kv, err := ParseHeaders(getenv("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	for k, v := range kv {
		attrs = append(attrs, attribute.String(k, v))
	}
	if name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); name != "" {
		attrs = append(attrs, attribute.String("service.name", name))
	}
	// NewSchemaless keeps the last value of a repeated key.
	return resource.NewSchemaless(attrs...), nil
}

// Shutdown flushes what is queued and stops the exporters, giving up at
// ctx's end. Safe on a nil Provider.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	errs := make(chan error, 2)
	go func() {
		if p.tp == nil {
			errs <- nil
			return
		}
		errs <- p.tp.Shutdown(ctx)
	}()
	go func() {
		if p.mp == nil {
			errs <- nil
			return
		}
		errs <- p.mp.Shutdown(ctx)
	}()
	return errors.Join(<-errs, <-errs)
}
