package session

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/repair"
)

// BenchmarkAppend measures one entry of the realistic session. "caller"
// is what the stream loop pays per Append (encoding and queueing);
// "durable" adds the writer goroutine's write and one fsync at the end,
// the throughput the disk side sustains.
func BenchmarkAppend(b *testing.B) {
	msgs := realistic()
	b.Run("caller", func(b *testing.B) {
		_, _, w := newSession(b, "bench")
		defer mustClose(b, w)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			w.Append(msgs[i%len(msgs)])
			i++
		}
		b.StopTimer()
		if err := w.Sync(); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("durable", func(b *testing.B) {
		_, _, w := newSession(b, "bench")
		defer mustClose(b, w)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			w.Append(msgs[i%len(msgs)])
		}
		if err := w.Sync(); err != nil {
			b.Fatal(err)
		}
	})
}

// benchTranscript writes a session of n entries: model entries with a
// thought, text and two calls, user entries with their results, a
// prompt every 20 entries, and a dangling last call.
func benchTranscript(b *testing.B, n int) string {
	_, _, w := newSession(b, "load")
	output := strings.Repeat("line of tool output\n", 25)
	for i := 0; i < n; {
		if i%20 == 0 {
			w.Append(user(text(fmt.Sprintf("prompt %d: carry on with the refactoring", i))))
			i++
			continue
		}
		a, c := fmt.Sprintf("a%d", i), fmt.Sprintf("c%d", i)
		w.Append(model(llm.FinishToolCalls,
			llm.Part{Text: "I should read both files first.", Thought: true},
			text("Reading the files."),
			call(a, "read_file", `{"path":"internal/a.go"}`),
			call(c, "read_file", `{"path":"internal/c.go"}`)))
		i++
		if i < n {
			w.Append(user(resp(a, "read_file", output), resp(c, "read_file", output)))
			i++
		}
		if i%100 == 0 {
			w.AppendToolState(ToolState{CallID: a, Name: "read_file", State: "success", Time: time.Now()})
		}
	}
	mustClose(b, w)
	return w.Path()
}

// BenchmarkLoad10k is what --continue pays before it can classify: load a
// 10,000-entry transcript and repair it as resume needs it.
func BenchmarkLoad10k(b *testing.B) {
	const n = 10000
	path := benchTranscript(b, n)
	b.SetBytes(fileSize(b, path))
	b.ReportAllocs()
	for b.Loop() {
		tr, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.History) != n {
			b.Fatalf("%d entries, want %d", len(tr.History), n)
		}
		repair.RepairWith(tr.History, repair.Options{SkipTrailing: true})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entry")
}

// BenchmarkSummarize is what List pays per session file: the same
// 10,000-entry transcript, scanned without decoding its entries.
func BenchmarkSummarize(b *testing.B) {
	path := benchTranscript(b, 10000)
	b.SetBytes(fileSize(b, path))
	for b.Loop() {
		if _, err := summarize(path); err != nil {
			b.Fatal(err)
		}
	}
}

// compactedTranscript writes a session of the given number of rounds near
// its context limit, as BenchmarkLongSession's 16k-token window leaves
// it: each round reads a 4 KB page, each cuts the oldest whole result,
// and every 30 rounds the older history is summarised.
func compactedTranscript(b *testing.B, rounds int) string {
	_, _, w := newSession(b, "compacted")
	page := strings.Repeat(strings.Repeat("x", 99)+"\n", 40)
	h := []llm.Message{user(text("read big.txt page by page"))}
	w.Append(h[0])
	cut := 1 // the first entry whose result is whole
	for i := range rounds {
		id := fmt.Sprintf("p%d", i)
		m := model(llm.FinishToolCalls, text(fmt.Sprintf("Reading page %d.", i)), call(id, "read_file", `{"file_path":"big.txt"}`))
		u := user(resp(id, "read_file", page))
		w.Append(m)
		w.Append(u)
		h = append(h, m, u)
		if len(h) > 12 {
			for ; cut < len(h); cut++ {
				if r := h[cut].Parts[0].Response; r != nil {
					c := h[cut]
					c.Parts = []llm.Part{resp(r.ID, r.Name, page[:1024]+"\n[… 3072 bytes of this tool result were cut …]\n"+page[len(page)-512:])}
					h = append(slices.Clip(h[:cut]), append([]llm.Message{c}, h[cut+1:]...)...)
					cut++
					break
				}
			}
			w.AppendCompaction(h)
		}
		if i%30 == 29 {
			keep := h[len(h)-10:]
			h = append([]llm.Message{user(text(fmt.Sprintf("This is a summary of the earlier conversation:\n\nSUMMARY %d", i)))}, keep...)
			cut = 1
			w.AppendCompaction(h)
		}
	}
	mustClose(b, w)
	return w.Path()
}

// BenchmarkLoadCompacted is what --continue of a 3,000-round session near
// its context limit pays to load it: a line of changes a round.
func BenchmarkLoadCompacted(b *testing.B) {
	path := compactedTranscript(b, 3000)
	b.SetBytes(fileSize(b, path))
	b.ReportAllocs()
	for b.Loop() {
		tr, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.History) < 10 || len(tr.Warnings) > 0 {
			b.Fatalf("%d entries, warnings %v", len(tr.History), tr.Warnings)
		}
	}
}
