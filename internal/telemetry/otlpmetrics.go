package telemetry

import (
	"strconv"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

type otlpMetrics struct {
	ResourceMetrics []otlpResourceMetrics `json:"resourceMetrics"`
}

type otlpResourceMetrics struct {
	Resource     otlpResource       `json:"resource"`
	ScopeMetrics []otlpScopeMetrics `json:"scopeMetrics"`
}

type otlpScopeMetrics struct {
	Scope   otlpScope    `json:"scope"`
	Metrics []otlpMetric `json:"metrics"`
}

type otlpMetric struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Unit        string         `json:"unit,omitempty"`
	Sum         *otlpSum       `json:"sum,omitempty"`
	Gauge       *otlpGauge     `json:"gauge,omitempty"`
	Histogram   *otlpHistogram `json:"histogram,omitempty"`
}

type otlpSum struct {
	DataPoints  []otlpNumberPoint `json:"dataPoints"`
	Temporality int               `json:"aggregationTemporality"`
	Monotonic   bool              `json:"isMonotonic"`
}

type otlpGauge struct {
	DataPoints []otlpNumberPoint `json:"dataPoints"`
}

type otlpNumberPoint struct {
	Attributes []otlpKV `json:"attributes,omitempty"`
	Start      string   `json:"startTimeUnixNano"`
	Time       string   `json:"timeUnixNano"`
	AsInt      *string  `json:"asInt,omitempty"`
	AsDouble   *float64 `json:"asDouble,omitempty"`
}

type otlpHistogram struct {
	DataPoints  []otlpHistogramPoint `json:"dataPoints"`
	Temporality int                  `json:"aggregationTemporality"`
}

type otlpHistogramPoint struct {
	Attributes     []otlpKV  `json:"attributes,omitempty"`
	Start          string    `json:"startTimeUnixNano"`
	Time           string    `json:"timeUnixNano"`
	Count          string    `json:"count"`
	Sum            float64   `json:"sum"`
	BucketCounts   []string  `json:"bucketCounts"`
	ExplicitBounds []float64 `json:"explicitBounds"`
	Min            *float64  `json:"min,omitempty"`
	Max            *float64  `json:"max,omitempty"`
}

// temporality numbers the SDK's temporality as OTLP does (the two
// number them differently).
func temporality(t metricdata.Temporality) int {
	switch t {
	case metricdata.DeltaTemporality:
		return 1
	case metricdata.CumulativeTemporality:
		return 2
	}
	return 0
}

func encodeMetrics(rm *metricdata.ResourceMetrics) otlpMetrics {
	r := otlpResourceMetrics{Resource: encodeResource(rm.Resource)}
	for _, sm := range rm.ScopeMetrics {
		var ms []otlpMetric
		for _, m := range sm.Metrics {
			if om, ok := encodeMetric(m); ok {
				ms = append(ms, om)
			}
		}
		if len(ms) > 0 {
			r.ScopeMetrics = append(r.ScopeMetrics, otlpScopeMetrics{
				Scope: otlpScope{Name: sm.Scope.Name, Version: sm.Scope.Version}, Metrics: ms})
		}
	}
	return otlpMetrics{ResourceMetrics: []otlpResourceMetrics{r}}
}

// encodeMetric encodes the aggregations ply's instruments make (sums,
// gauges, explicit-bucket histograms); false for any other.
func encodeMetric(m metricdata.Metrics) (otlpMetric, bool) {
	o := otlpMetric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		o.Sum = &otlpSum{DataPoints: intPoints(d.DataPoints), Temporality: temporality(d.Temporality), Monotonic: d.IsMonotonic}
	case metricdata.Sum[float64]:
		o.Sum = &otlpSum{DataPoints: floatPoints(d.DataPoints), Temporality: temporality(d.Temporality), Monotonic: d.IsMonotonic}
	case metricdata.Gauge[int64]:
		o.Gauge = &otlpGauge{DataPoints: intPoints(d.DataPoints)}
	case metricdata.Gauge[float64]:
		o.Gauge = &otlpGauge{DataPoints: floatPoints(d.DataPoints)}
	case metricdata.Histogram[float64]:
		h := &otlpHistogram{Temporality: temporality(d.Temporality)}
		for _, p := range d.DataPoints {
			hp := otlpHistogramPoint{
				Attributes: encodeAttrs(p.Attributes.ToSlice()),
				Start:      nanos(p.StartTime), Time: nanos(p.Time),
				Count: strconv.FormatUint(p.Count, 10), Sum: p.Sum,
				ExplicitBounds: p.Bounds, BucketCounts: make([]string, len(p.BucketCounts)),
			}
			for i, c := range p.BucketCounts {
				hp.BucketCounts[i] = strconv.FormatUint(c, 10)
			}
			if v, ok := p.Min.Value(); ok {
				hp.Min = &v
			}
			if v, ok := p.Max.Value(); ok {
				hp.Max = &v
			}
			h.DataPoints = append(h.DataPoints, hp)
		}
		o.Histogram = h
	default:
		return o, false
	}
	return o, true
}

func intPoints(ps []metricdata.DataPoint[int64]) []otlpNumberPoint {
	out := make([]otlpNumberPoint, len(ps))
	for i, p := range ps {
		v := strconv.FormatInt(p.Value, 10)
		out[i] = otlpNumberPoint{Attributes: encodeAttrs(p.Attributes.ToSlice()), Start: nanos(p.StartTime), Time: nanos(p.Time), AsInt: &v}
	}
	return out
}

func floatPoints(ps []metricdata.DataPoint[float64]) []otlpNumberPoint {
	out := make([]otlpNumberPoint, len(ps))
	for i, p := range ps {
		v := p.Value
		out[i] = otlpNumberPoint{Attributes: encodeAttrs(p.Attributes.ToSlice()), Start: nanos(p.StartTime), Time: nanos(p.Time), AsDouble: &v}
	}
	return out
}
