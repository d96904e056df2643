package chat

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// callingProvider answers every request with a short text and one
// read_file call of a fresh id.
type callingProvider struct{ n int }

func (p *callingProvider) Stream(context.Context, *llm.Request) iter.Seq2[llm.Chunk, error] {
	p.n++
	id := fmt.Sprintf("call_r%d", p.n)
	return func(yield func(llm.Chunk, error) bool) {
		yield(llm.Chunk{Text: "Reading the next page.", Calls: []llm.FunctionCall{{ID: id, Name: "read_file", Args: `{"file_path":"big.txt"}`}},
			FinishReason: llm.FinishToolCalls}, nil)
	}
}

// BenchmarkRound is the chat's own work in a round of a long session
// whose window holds its history (no pressure): the tool result pushed,
// the request made, the reply with its call taken into history. The
// provider costs next to nothing, so what grows from history=10 to
// history=1000 is work the chat does over the whole history each round.
func BenchmarkRound(b *testing.B) {
	page := strings.Repeat(strings.Repeat("x", 99)+"\n", 40)
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			h := []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "read big.txt page by page"}}}}
			for i := range n / 2 {
				id := fmt.Sprintf("call_h%d", i)
				h = append(h, llm.Message{Role: llm.RoleModel, FinishReason: llm.FinishToolCalls, Parts: []llm.Part{{Text: "Reading."}, {Call: &llm.FunctionCall{ID: id, Name: "read_file", Args: `{}`}}}},
					llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: id, Name: "read_file", Output: page}}}})
			}
			p := &callingProvider{}
			c := New(p, Config{Retry: fast, ContextWindow: 100_000_000}, h)
			ctx := context.Background()
			last := "call_h0"
			b.ReportAllocs()
			for b.Loop() {
				res := llm.Message{Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: last, Name: "read_file", Output: page}}}}
				for ev, err := range c.SendMessageStream(ctx, res) {
					if err != nil {
						b.Fatal(err)
					}
					_ = ev
				}
				last = fmt.Sprintf("call_r%d", p.n)
				b.StopTimer()
				c.SetHistory(h) // the same length each round
				b.StartTimer()
			}
		})
	}
}
