package scheduler

import (
	"context"
	"strconv"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// BenchmarkSchedulerOverhead measures what the scheduler adds around a tool
// that does nothing: validation against a cached schema, state changes,
// batching, goroutines for parallel batches and result conversion. ns/op
// and allocs/op are per call.
func BenchmarkSchedulerOverhead(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(strconv.Itoa(n)+"-calls", func(b *testing.B) {
			s := New(tools.NewRegistry(&fakeTool{name: "noop", kind: tools.KindRead,
				run: func(context.Context, string, tools.Output) (tools.Result, error) {
					return tools.Result{Output: "x"}, nil
				}}))
			reqs := make([]Request, n)
			for i := range reqs {
				reqs[i] = req("noop", strconv.Itoa(i))
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Run(ctx, reqs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}
