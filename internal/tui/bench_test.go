package tui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// benchText is about size bytes of the markdown a model writes: prose with
// emphasis and inline code, lists, headings and fenced Go code.
func benchText(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Step %d\n\nThe function `handle%d` reads the **request**, checks its *fields* and "+
			"returns an error that says what was wrong; see [the docs](https://example.invalid/%d) for more.\n\n", i, i, i)
		b.WriteString("- first, the parser\n- then the `validator`, which is longer and wraps across the width of an 80-column terminal\n  - nested item\n\n")
		fmt.Fprintf(&b, "```go\nfunc handle%d(ctx context.Context, r *Request) error {\n\tif r == nil {\n\t\treturn errors.New(\"nil request\")\n\t}\n\treturn nil // done\n}\n```\n\n", i)
	}
	return b.String()
}

// chunks splits s into pieces of n bytes, as a provider's deltas arrive.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// streamingModel is a model in the middle of an interaction, as the
// program holds it: events arrive, prints complete, frames are drawn.
func streamingModel(tb testing.TB, width, height int) *model {
	tb.Helper()
	m := newModel(Config{Model: "bench-model", PermissionMode: "default", Width: width, Height: height}, &driver{})
	m.busy, m.id = true, 1
	return m
}

// frame applies one chunk as the program does: the event, the print it
// asked for completing, then the redraw.
func frame(m *model, text string) int {
	m.Update(eventMsg{id: 1, ev: turn.Content{Text: text}})
	m.Update(printedMsg{})
	return len(m.View().Content)
}

// BenchmarkStreamFrame measures the cost of one streamed chunk: the
// event, its lines going to the scrollback and the frame drawn after it.
// The reply cycles through 1 MB of markdown; with a 2,000-message history
// loaded the frame costs the same, since only the live area is drawn.
func BenchmarkStreamFrame(b *testing.B) {
	text := benchText(1 << 20)
	for _, bc := range []struct {
		name    string
		chunk   int
		history int
	}{
		{"chunk=24B", 24, 0},
		{"chunk=200B", 200, 0},
		{"chunk=24B/history=2000", 24, 2000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			parts := chunks(text, bc.chunk)
			m := streamingModel(b, 100, 30)
			if bc.history > 0 {
				m.Update(printedMsg{})
				m.commit(m.renderHistory(benchHistory(bc.history)))
				m.Update(printedMsg{})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % len(parts)
				if k == 0 && i > 0 {
					m.Update(eventMsg{id: 1, ev: turn.Finished{}})
					m.Update(printedMsg{})
				}
				frame(m, parts[k])
			}
		})
	}
}

// benchHistory is a saved conversation of n messages: prompts, replies in
// markdown, tool calls and their results.
func benchHistory(n int) []llm.Message {
	h := make([]llm.Message, 0, n)
	for i := 0; len(h) < n; i++ {
		h = append(h, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: fmt.Sprintf("please fix test %d in pkg/x", i)}}})
		h = append(h, llm.Message{Role: llm.RoleModel, Parts: []llm.Part{
			{Text: fmt.Sprintf("Looking at `x_test.go`: the **assertion** on line %d is wrong.\n\n```go\nif got != want {\n\tt.Fatal(got)\n}\n```\n", i)},
			{Call: &llm.FunctionCall{ID: fmt.Sprint("c", i), Name: "read_file", Args: `{"file_path":"pkg/x/x_test.go"}`}},
		}})
		h = append(h, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{
			{Response: &llm.FunctionResponse{ID: fmt.Sprint("c", i), Name: "read_file", Output: strings.Repeat("package x\n", 20)}},
		}})
		h = append(h, llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "- fixed the assertion\n- ran the tests: **ok**\n"}}})
	}
	return h[:n]
}

// BenchmarkRenderHistory measures drawing a resumed 2,000-message
// conversation, done once when it is loaded (or /resume'd).
func BenchmarkRenderHistory(b *testing.B) {
	h := benchHistory(2000)
	m := streamingModel(b, 100, 30)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m.renderHistory(h) == "" {
			b.Fatal("empty rendering")
		}
	}
}

// retainedAfterStream streams text in chunks of n bytes, ends the round,
// and returns the heap the model still holds beyond what it held before.
func retainedAfterStream(tb testing.TB, text string, n int) int64 {
	parts := chunks(text, n)
	m := streamingModel(tb, 100, 30)
	frame(m, "warm up\n")
	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	before := heap()
	for i, p := range parts {
		// The program draws at most one frame per refresh, not one per
		// chunk; drawing every 64th keeps the race-enabled run short.
		if i%64 == 0 {
			frame(m, p)
			continue
		}
		m.Update(eventMsg{id: 1, ev: turn.Content{Text: p}})
		m.Update(printedMsg{})
	}
	m.Update(eventMsg{id: 1, ev: turn.Finished{}})
	m.Update(printedMsg{})
	after := heap()
	runtime.KeepAlive(m)
	runtime.KeepAlive(parts)
	return after - before
}

// TestStreamMemoryFlat checks that streaming holds no more than the text:
// what was streamed went to the terminal, and the model keeps neither the
// chunks nor the rendered lines, however many chunks there were.
func TestStreamMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 MB several times")
	}
	text := benchText(1 << 20)
	small := retainedAfterStream(t, text, 8)
	large := retainedAfterStream(t, text, 512)
	t.Logf("retained after 1 MB: %d B in 8-byte chunks (%d chunks), %d B in 512-byte chunks", small, len(text)/8, large)
	if limit := int64(len(text)); small > limit || large > limit {
		t.Errorf("the model retains more than the text after streaming it: %d B (8-byte chunks), %d B (512-byte chunks), text %d B", small, large, len(text))
	}
	// 131,072 chunks against 2,048: a per-chunk cost of even 8 bytes
	// would show as 1 MB here.
	if d := small - large; d > 256<<10 {
		t.Errorf("memory grows with the number of chunks: %d B more retained for 64x the chunks", d)
	}
}
