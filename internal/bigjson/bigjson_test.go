package bigjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

type doc struct {
	A    string   `json:"a"`
	List []string `json:"list"`
	B    string   `json:"b,omitempty"`
	N    int      `json:"n"`
}

// checkSame encodes d with a, b and the list's strings held, and
// compares the pieces written with what encoding/json writes.
func checkSame(t *testing.T, d doc) {
	t.Helper()
	var want bytes.Buffer
	want.WriteString("P")
	e := json.NewEncoder(&want)
	e.SetEscapeHTML(false)
	if err := e.Encode(d); err != nil {
		t.Fatal(err)
	}
	var h Holder
	held := d
	held.A = h.Hold(d.A)
	held.List = nil
	for _, s := range d.List {
		held.List = append(held.List, h.Hold(s))
	}
	if d.B != "" {
		held.B = h.Hold(d.B)
	}
	ps, err := h.Encode("P", held)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := ps.Write(bufio.NewWriterSize(&got, 16)); err != nil {
		t.Fatal(err)
	}
	if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got.Bytes(), w) {
		t.Fatalf("pieces differ from encoding/json:\n got %q\nwant %q", got.Bytes(), w)
	}
	var viaWriteTo bytes.Buffer
	if n, err := ps.WriteTo(&viaWriteTo); err != nil || n != int64(got.Len()) || !bytes.Equal(viaWriteTo.Bytes(), got.Bytes()) {
		t.Fatalf("WriteTo wrote %d bytes (%v): %q", n, err, viaWriteTo.Bytes())
	}
}

func TestEncodeIsEncodingJSON(t *testing.T) {
	weird := "quote \" back \\ nl \n cr \r tab \t bs \b ff \f nul \x00 esc \x1b del \x7f <&> é 世 \u2028 \u2029 bad \xff\xfe end"
	for _, d := range []doc{
		{A: weird, N: 1},
		{A: "", List: []string{weird, "", "plain"}, B: weird + "2"},
		{A: "tiny"},
	} {
		checkSame(t, d)
	}
}

// A held string that looks like a placeholder is written as itself.
func TestPlaceholderLookalike(t *testing.T) {
	checkSame(t, doc{A: "\x00ply-big-text-1-0\x00", List: []string{"\x00ply-big-text-1-1\x00"}})
}

func FuzzEncode(f *testing.F) {
	f.Add("hello", "world", "")
	f.Add("\x00ply-big-text-0\x00", "\xff", "x")
	f.Add("\u2028\"\\", "\x01\x1f", "<>&")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		checkSame(t, doc{A: a, List: []string{b, a + b}, B: c})
	})
}
