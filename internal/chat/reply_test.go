package chat

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestReplyHoldsStreamedTextOnce(t *testing.T) {
	piece := strings.Repeat("x", 1024)
	r := &reply{msg: llm.Message{Role: llm.RoleModel}}
	for i := 0; i < 4096; i++ {
		r.add(&llm.Chunk{Text: piece})
	}
	if len(r.msg.Parts) != 1 || len(r.msg.Parts[0].Text) != 4096*1024 {
		t.Fatalf("%d parts, %d bytes", len(r.msg.Parts), len(r.msg.Text()))
	}
	// Growing 4 MiB in 1 KiB pieces must allocate a small multiple of
	// 4 MiB, not a copy per piece (which would be 8 GiB).
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r = &reply{msg: llm.Message{Role: llm.RoleModel}}
	for j := 0; j < 4096; j++ {
		r.add(&llm.Chunk{Text: piece})
	}
	runtime.ReadMemStats(&after)
	allocs := after.TotalAlloc - before.TotalAlloc
	if allocs > 3*4096*1024 {
		t.Fatalf("%d bytes allocated for a 4 MiB reply", allocs)
	}
}

func TestReplyPartsByKind(t *testing.T) {
	r := &reply{msg: llm.Message{Role: llm.RoleModel}}
	for _, ch := range []llm.Chunk{
		{Thought: "think "}, {Thought: "more", ThoughtSignature: "sig"}, {Thought: "again"},
		{Text: "a"}, {Text: "b"}, {Calls: []llm.FunctionCall{{ID: "c", Name: "f"}}}, {Text: "c"},
	} {
		r.add(&ch)
	}
	p := r.msg.Parts
	if len(p) != 5 || p[0].Text != "think more" || p[0].Signature != "sig" || !p[1].Thought || p[1].Text != "again" ||
		p[2].Text != "ab" || p[3].Call == nil || p[4].Text != "c" {
		t.Fatalf("parts %+v", p)
	}
}

func TestContinuationMergesIntoOneTextPart(t *testing.T) {
	p := &scripted{steps: []step{
		{chunks: []llm.Chunk{text("The quick "), text("brown fox")}, err: errUnexpectedEOF()},
		{chunks: []llm.Chunk{text("brown f"), text("ox jumps."), stop()}},
	}}
	c := New(p, Config{Retry: fast}, nil)
	got := drain(t, c, userText("go"))
	h := c.History()
	if got.err != nil || len(h) != 2 || len(h[1].Parts) != 1 || h[1].Parts[0].Text != "The quick brown fox jumps." {
		t.Fatalf("err %v history %+v", got.err, h)
	}
}

func BenchmarkReply50MB(b *testing.B) {
	piece := strings.Repeat("0123456789abcdef", 256)
	b.ReportAllocs()
	b.SetBytes(50 << 20)
	for i := 0; i < b.N; i++ {
		r := &reply{msg: llm.Message{Role: llm.RoleModel}}
		for j := 0; j < 50<<8; j++ {
			r.add(&llm.Chunk{Text: piece})
		}
	}
}

func errUnexpectedEOF() error { return io.ErrUnexpectedEOF }

func TestContinuationIsAnnounced(t *testing.T) {
	p := &scripted{steps: []step{
		{chunks: []llm.Chunk{text("The quick brown fox")}, err: io.ErrUnexpectedEOF},
		{chunks: []llm.Chunk{text(" jumps."), stop()}},
	}}
	c := New(p, Config{Retry: fast}, nil)
	var got []StreamEvent
	for ev, err := range c.SendMessageStream(t.Context(), userText("go")) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == EventContinue || ev.Kind == EventRetry {
			got = append(got, ev)
		}
	}
	if len(got) != 1 || got[0].Kind != EventContinue || got[0].Attempt != 1 || !strings.Contains(got[0].Reason, "unexpected EOF") {
		t.Fatalf("events %+v, want one EventContinue naming the cut", got)
	}
}
