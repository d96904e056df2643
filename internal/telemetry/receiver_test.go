package telemetry

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// receiver is an OTLP/HTTP collector on loopback: it decodes what ply
// sends with the field names of the OTLP JSON mapping, independently of
// the exporter's own types.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	// raw are the request bodies; headers the last request's headers.
	raw     []string
	headers http.Header
	spans   []rxSpan
	metrics map[string][]rxPoint
	types   []string
}

type rxKV struct {
	Key   string `json:"key"`
	Value struct {
		String *string  `json:"stringValue"`
		Int    *string  `json:"intValue"`
		Double *float64 `json:"doubleValue"`
		Bool   *bool    `json:"boolValue"`
	} `json:"value"`
}

type rxAttrs []rxKV

func (a rxAttrs) get(k string) (string, bool) {
	for _, kv := range a {
		if kv.Key != k {
			continue
		}
		v := kv.Value
		switch {
		case v.String != nil:
			return *v.String, true
		case v.Int != nil:
			return *v.Int, true
		case v.Double != nil:
			return strconv.FormatFloat(*v.Double, 'g', -1, 64), true
		case v.Bool != nil:
			return strconv.FormatBool(*v.Bool), true
		}
	}
	return "", false
}

type rxSpan struct {
	Resource     rxAttrs
	TraceID      string  `json:"traceId"`
	SpanID       string  `json:"spanId"`
	ParentSpanID string  `json:"parentSpanId"`
	Name         string  `json:"name"`
	Start        string  `json:"startTimeUnixNano"`
	End          string  `json:"endTimeUnixNano"`
	Attributes   rxAttrs `json:"attributes"`
	Events       []struct {
		Name       string  `json:"name"`
		Attributes rxAttrs `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code int `json:"code"`
	} `json:"status"`
}

// rxPoint is a sum's or a histogram's data point.
type rxPoint struct {
	Attributes rxAttrs  `json:"attributes"`
	AsInt      string   `json:"asInt"`
	AsDouble   *float64 `json:"asDouble"`
	Count      string   `json:"count"`
	Sum        float64  `json:"sum"`
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{metrics: map[string][]rxPoint{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, string(body))
	r.headers = req.Header.Clone()
	r.types = append(r.types, req.Header.Get("Content-Type"))
	switch req.URL.Path {
	case "/v1/traces":
		var tr struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes rxAttrs `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []rxSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(body, &tr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range tr.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					s.Resource = rs.Resource.Attributes
					r.spans = append(r.spans, s)
				}
			}
		}
	case "/v1/metrics":
		var m struct {
			ResourceMetrics []struct {
				ScopeMetrics []struct {
					Metrics []struct {
						Name string `json:"name"`
						Sum  *struct {
							DataPoints []rxPoint `json:"dataPoints"`
						} `json:"sum"`
						Histogram *struct {
							DataPoints []rxPoint `json:"dataPoints"`
						} `json:"histogram"`
					} `json:"metrics"`
				} `json:"scopeMetrics"`
			} `json:"resourceMetrics"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range m.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, mt := range sm.Metrics {
					var ps []rxPoint
					if mt.Sum != nil {
						ps = mt.Sum.DataPoints
					}
					if mt.Histogram != nil {
						ps = mt.Histogram.DataPoints
					}
					// Cumulative: the last export holds the totals.
					r.metrics[mt.Name] = ps
				}
			}
		}
	default:
		http.NotFound(w, req)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (r *receiver) snapshot() ([]rxSpan, map[string][]rxPoint, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]rxSpan(nil), r.spans...), r.metrics, append([]string(nil), r.raw...)
}
