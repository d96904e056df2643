package telemetry

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/settings"
)

// defaultEndpoint is OTLP/HTTP's conventional local collector.
const defaultEndpoint = "http://localhost:4318"

// defaultTimeout bounds one export request (OTEL_EXPORTER_OTLP_TIMEOUT
// overrides it).
const defaultTimeout = 10 * time.Second

// resolved is where and how the exporters send.
type resolved struct {
	traces, metrics string // full URLs; "" when the signal is off
	traceHeaders    map[string]string
	metricHeaders   map[string]string
	timeout         time.Duration
}

// enabled reports whether telemetry is on: the settings' enabled or
// PLY_TELEMETRY=1, unless PLY_TELEMETRY=0 or OTEL_SDK_DISABLED=true.
func enabled(s settings.Telemetry, getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(getenv("PLY_TELEMETRY"))) {
	case "1", "true":
		return true
	case "0", "false":
		return false
	}
	return s.Enabled
}

// resolve reads the standard OTEL_EXPORTER_OTLP_* variables over s.
func resolve(s settings.Telemetry, getenv func(string) string) (resolved, error) {
	base := firstSet(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), s.Endpoint, defaultEndpoint)
	r := resolved{timeout: defaultTimeout}
	var err error
	if r.traces, err = signalURL(base, getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), "v1/traces"); err != nil {
		return r, err
	}
	if r.metrics, err = signalURL(base, getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"), "v1/metrics"); err != nil {
		return r, err
	}
	if strings.EqualFold(getenv("OTEL_TRACES_EXPORTER"), "none") {
		r.traces = ""
	}
	if strings.EqualFold(getenv("OTEL_METRICS_EXPORTER"), "none") {
		r.metrics = ""
	}
	common, err := ParseHeaders(getenv("OTEL_EXPORTER_OTLP_HEADERS"))
	if err != nil {
		return r, fmt.Errorf("OTEL_EXPORTER_OTLP_HEADERS: %w", err)
	}
	if r.traceHeaders, err = signalHeaders(common, getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS")); err != nil {
		return r, fmt.Errorf("OTEL_EXPORTER_OTLP_TRACES_HEADERS: %w", err)
	}
	if r.metricHeaders, err = signalHeaders(common, getenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS")); err != nil {
		return r, fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_HEADERS: %w", err)
	}
	if t := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TIMEOUT")); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return r, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT: %q is not a positive number of milliseconds", t)
		}
		r.timeout = time.Duration(ms) * time.Millisecond
	}
	return r, nil
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// signalURL is a signal's URL: its own variable as given, else the base
// with the signal's path appended, as the OTLP exporter specification
// says.
func signalURL(base, own, path string) (string, error) {
	u := strings.TrimSpace(own)
	if u == "" {
		u = strings.TrimRight(base, "/") + "/" + path
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", fmt.Errorf("telemetry endpoint %q is not an http or https URL", u)
	}
	return u, nil
}

func signalHeaders(common map[string]string, own string) (map[string]string, error) {
	h, err := ParseHeaders(own)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(common)+len(h))
	for k, v := range common {
		out[k] = v
	}
	for k, v := range h {
		out[k] = v
	}
	return out, nil
}

// ParseHeaders parses an OTEL_EXPORTER_OTLP_HEADERS value: comma-separated
// key=value pairs, values percent-encoded. A pair without '=' or with an
// empty key, or a key or value that a request header cannot hold, is an
// error that names it.
func ParseHeaders(s string) (map[string]string, error) {
	out := map[string]string{}
	for pair := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not a key=value pair", pair)
		}
		if !validToken(k) {
			return nil, fmt.Errorf("%q is not a valid header name", k)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("header %s: the value is not percent-encoded correctly", k)
		}
		if strings.ContainsAny(val, "\r\n\x00") {
			return nil, fmt.Errorf("header %s: the value holds a line break or NUL", k)
		}
		out[k] = val
	}
	return out, nil
}

// validToken reports whether s is an HTTP token (a header name).
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return s != ""
}
