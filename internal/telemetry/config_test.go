package telemetry

import (
	"net/http"
	"strings"
	"testing"
)

func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders(" api-key = abc%3D%3D , x-team=ply%20fleet,,")
	if err != nil || h["api-key"] != "abc==" || h["x-team"] != "ply fleet" || len(h) != 2 {
		t.Errorf("ParseHeaders = %v, %v", h, err)
	}
	for in, want := range map[string]string{
		"novalue":         `"novalue" is not a key=value pair`,
		"=v":              `"=v" is not a key=value pair`,
		"a b=c":           `"a b" is not a valid header name`,
		"k=%zz":           "header k: the value is not percent-encoded correctly",
		"k=line%0Abreak":  "header k: the value holds a line break or NUL",
		"ok=1,bad(name)=": `"bad(name)" is not a valid header name`,
	} {
		if _, err := ParseHeaders(in); err == nil || err.Error() != want {
			t.Errorf("ParseHeaders(%q) = %v, want %q", in, err, want)
		}
	}
}

// Whatever ParseHeaders accepts can be sent as request headers.
func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"", "a=b", "a=b,c=d%20e", "=", ",,,", "k=%0D%0A", "a b=c", "k=v=w", "ключ=v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeaders(s)
		if err != nil {
			if h != nil {
				t.Fatalf("error %v with headers %v", err, h)
			}
			return
		}
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", nil)
		for k, v := range h {
			if k == "" || strings.ContainsAny(v, "\r\n\x00") {
				t.Fatalf("accepted header %q: %q", k, v)
			}
			req.Header.Set(k, v)
		}
		var b strings.Builder
		if err := req.Header.Write(&b); err != nil {
			t.Fatalf("headers %v do not write: %v", h, err)
		}
	})
}

func TestResolveEndpoints(t *testing.T) {
	r, err := resolve(settingsOn("http://collector:4318/"), env(map[string]string{
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://metrics.example/custom",
		"OTEL_EXPORTER_OTLP_TIMEOUT":          "1500",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if r.traces != "http://collector:4318/v1/traces" || r.metrics != "https://metrics.example/custom" || r.timeout.Milliseconds() != 1500 {
		t.Errorf("resolve = %+v", r)
	}
	r, _ = resolve(settingsOn(""), env(map[string]string{"OTEL_METRICS_EXPORTER": "none"}))
	if r.traces != defaultEndpoint+"/v1/traces" || r.metrics != "" {
		t.Errorf("defaults with metrics off = %+v", r)
	}
	r, _ = resolve(settingsOn("http://from-settings:4318"), env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://from-env:4318"}))
	if r.traces != "http://from-env:4318/v1/traces" {
		t.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT does not override the settings: %s", r.traces)
	}
}
