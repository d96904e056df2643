package session

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// encodeEntry must write exactly what encoding/json writes: the transcript
// is read back with it, and List counts lines by their first bytes.
func checkSameAsJSON(t *testing.T, m llm.Message) {
	t.Helper()
	var want, got bytes.Buffer
	want.WriteString("P")
	if err := encodeTo(&want, m); err != nil {
		t.Fatal(err)
	}
	parts, err := encodeEntry("P", m)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(&got, 16)
	if err := writeParts(bw, parts); err != nil {
		t.Fatal(err)
	}
	if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got.Bytes(), w) {
		t.Fatalf("encodeEntry differs from encoding/json:\n got %q\nwant %q", got.Bytes(), w)
	}
}

func TestEncodeEntryBigTexts(t *testing.T) {
	defer func(n int) { bigText = n }(bigText)
	bigText = 8
	weird := "quote \" back \\ nl \n cr \r tab \t bs \b ff \f nul \x00 esc \x1b del \x7f <&> é 世 \u2028 \u2029 bad \xff\xfe end"
	for _, m := range []llm.Message{
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: weird}}},
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: "small"}, {Text: weird, Thought: true, Signature: "sig"}, {Text: strings.Repeat("x", 20)}}},
		{Role: llm.RoleUser, Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: "c1", Name: "read_file", Output: weird}}}},
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: weird, Response: &llm.FunctionResponse{ID: "c", Output: weird + "2"}}}, FinishReason: llm.FinishStop},
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: "tiny"}}},
	} {
		checkSameAsJSON(t, m)
	}
}

func FuzzEncodeEntry(f *testing.F) {
	f.Add("hello", "world")
	f.Add("\x00ply-big-text-0\x00", "\xff")
	f.Add("\u2028\"\\", "\x01\x1f")
	f.Fuzz(func(t *testing.T, a, b string) {
		defer func(n int) { bigText = n }(bigText)
		bigText = 4
		checkSameAsJSON(t, llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: a}, {Text: b}, {Response: &llm.FunctionResponse{ID: "x", Output: a + b}}}})
	})
}

// A reply with a text past bigText is written through the writer's
// streaming path and loads back whole, between ordinary lines.
func TestWriterBigTextRoundTrip(t *testing.T) {
	_, _, w := newSession(t, "big")
	big := strings.Repeat("line \"quoted\" \t tab é\n", (bigText/20)+10)
	hist := []llm.Message{
		user(text("write a lot")),
		model(llm.FinishStop, text(big)),
		user(resp("c1", "read_file", big+"tail")),
		user(text("thanks")),
	}
	for _, m := range hist {
		w.Append(m)
	}
	path := w.Path()
	mustClose(t, w)
	tr := mustLoad(t, path)
	noWarnings(t, tr)
	if len(tr.History) != 4 || tr.History[1].Parts[0].Text != big || tr.History[2].Parts[0].Response.Output != big+"tail" || tr.History[3].Parts[0].Text != "thanks" {
		t.Fatalf("loaded %d messages; the big texts did not come back whole", len(tr.History))
	}
}
