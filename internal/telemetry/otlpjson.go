package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// poster sends one OTLP/HTTP request with a JSON body: the encoding the
// OTLP specification allows beside protobuf, which spares the binary the
// protobuf and gRPC libraries the official exporters bring.
type poster struct {
	url     string
	headers map[string]string
	client  *http.Client
	closed  atomic.Bool
}

// errShutdown is an export after Shutdown.
var errShutdown = errors.New("telemetry exporter is shut down")

func (p *poster) post(ctx context.Context, body any) error {
	if p.closed.Load() {
		return errShutdown
	}
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encoding OTLP JSON: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("exporting to %s: %w", p.url, err)
	}
	for k, v := range p.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("exporting to %s: %w", p.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("exporting to %s: %s: %s", p.url, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// spanExporter is an sdktrace.SpanExporter speaking OTLP/HTTP JSON.
type spanExporter struct{ p *poster }

func (e *spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.p.post(ctx, encodeSpans(spans))
}

func (e *spanExporter) Shutdown(context.Context) error {
	e.p.closed.Store(true)
	return nil
}

// metricExporter is an sdkmetric.Exporter speaking OTLP/HTTP JSON, with
// the SDK's default temporality (cumulative) and aggregations.
type metricExporter struct{ p *poster }

func (e *metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (e *metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e *metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	body := encodeMetrics(rm)
	if len(body.ResourceMetrics[0].ScopeMetrics) == 0 {
		return nil
	}
	return e.p.post(ctx, body)
}

func (e *metricExporter) ForceFlush(context.Context) error { return nil }

func (e *metricExporter) Shutdown(context.Context) error {
	e.p.closed.Store(true)
	return nil
}

// The OTLP JSON mapping: lowerCamelCase names, 64-bit integers as
// decimal strings, trace and span ids as hex, enums as numbers.

type otlpTraces struct {
	ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
}

type otlpResourceSpans struct {
	Resource   otlpResource     `json:"resource"`
	ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
}

type otlpResource struct {
	Attributes []otlpKV `json:"attributes,omitempty"`
}

type otlpScope struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

type otlpScopeSpans struct {
	Scope otlpScope  `json:"scope"`
	Spans []otlpSpan `json:"spans"`
}

type otlpSpan struct {
	TraceID      string      `json:"traceId"`
	SpanID       string      `json:"spanId"`
	ParentSpanID string      `json:"parentSpanId,omitempty"`
	Name         string      `json:"name"`
	Kind         int         `json:"kind"`
	Start        string      `json:"startTimeUnixNano"`
	End          string      `json:"endTimeUnixNano"`
	Attributes   []otlpKV    `json:"attributes,omitempty"`
	Events       []otlpEvent `json:"events,omitempty"`
	Status       otlpStatus  `json:"status"`
}

type otlpEvent struct {
	Time       string   `json:"timeUnixNano"`
	Name       string   `json:"name"`
	Attributes []otlpKV `json:"attributes,omitempty"`
}

type otlpStatus struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpValue struct {
	String *string     `json:"stringValue,omitempty"`
	Bool   *bool       `json:"boolValue,omitempty"`
	Int    *string     `json:"intValue,omitempty"`
	Double *float64    `json:"doubleValue,omitempty"`
	Array  *otlpValues `json:"arrayValue,omitempty"`
}

type otlpValues struct {
	Values []otlpValue `json:"values"`
}

func nanos(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

func encodeSpans(spans []sdktrace.ReadOnlySpan) otlpTraces {
	type key struct {
		res   *resource.Resource
		scope instrumentation.Scope
	}
	var out otlpTraces
	at := map[*resource.Resource]int{}
	scopes := map[key]int{}
	for _, s := range spans {
		ri, ok := at[s.Resource()]
		if !ok {
			ri = len(out.ResourceSpans)
			at[s.Resource()] = ri
			out.ResourceSpans = append(out.ResourceSpans, otlpResourceSpans{Resource: encodeResource(s.Resource())})
		}
		rs := &out.ResourceSpans[ri]
		k := key{s.Resource(), s.InstrumentationScope()}
		si, ok := scopes[k]
		if !ok {
			si = len(rs.ScopeSpans)
			scopes[k] = si
			rs.ScopeSpans = append(rs.ScopeSpans, otlpScopeSpans{Scope: otlpScope{Name: k.scope.Name, Version: k.scope.Version}})
		}
		rs.ScopeSpans[si].Spans = append(rs.ScopeSpans[si].Spans, encodeSpan(s))
	}
	return out
}

func encodeSpan(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	o := otlpSpan{
		TraceID: sc.TraceID().String(),
		SpanID:  sc.SpanID().String(),
		Name:    s.Name(),
		Kind:    int(s.SpanKind()), // the SDK's kinds number as OTLP's
		Start:   nanos(s.StartTime()),
		End:     nanos(s.EndTime()),

		Attributes: encodeAttrs(s.Attributes()),
	}
	if p := s.Parent(); p.SpanID().IsValid() {
		o.ParentSpanID = p.SpanID().String()
	}
	for _, ev := range s.Events() {
		o.Events = append(o.Events, otlpEvent{Time: nanos(ev.Time), Name: ev.Name, Attributes: encodeAttrs(ev.Attributes)})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		o.Status = otlpStatus{Code: 2, Message: st.Description}
	case codes.Ok:
		o.Status = otlpStatus{Code: 1}
	}
	return o
}

func encodeResource(r *resource.Resource) otlpResource {
	if r == nil {
		return otlpResource{}
	}
	return otlpResource{Attributes: encodeAttrs(r.Attributes())}
}

func encodeAttrs(kvs []attribute.KeyValue) []otlpKV {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]otlpKV, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, otlpKV{Key: string(kv.Key), Value: encodeValue(kv.Value)})
	}
	return out
}

func encodeValue(v attribute.Value) otlpValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return otlpValue{Bool: &b}
	case attribute.INT64:
		s := strconv.FormatInt(v.AsInt64(), 10)
		return otlpValue{Int: &s}
	case attribute.FLOAT64:
		f := v.AsFloat64()
		return otlpValue{Double: &f}
	case attribute.STRINGSLICE:
		var a otlpValues
		for _, s := range v.AsStringSlice() {
			a.Values = append(a.Values, otlpValue{String: &s})
		}
		return otlpValue{Array: &a}
	}
	// Other slices (ply sets none) go as their text.
	s := v.String()
	return otlpValue{String: &s}
}
