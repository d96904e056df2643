package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

type ev struct {
	Name, Data, ID string
}

func (e ev) String() string { return fmt.Sprintf("{%q %q %q}", e.Name, e.Data, e.ID) }

// collect reads all events of r, copying Data, and returns the final error
// (nil for a clean end).
func collect(r *Reader) ([]ev, error) {
	var out []ev
	for e, err := range r.Events() {
		if err != nil {
			return out, err
		}
		out = append(out, ev{e.Name, string(e.Data), e.ID})
	}
	return out, nil
}

func TestParse(t *testing.T) {
	long := strings.Repeat("x", 1<<18) // several times the initial buffer
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"one event", "data: hello\n\n", []ev{{"", "hello", ""}}},
		{"two events", "data: a\n\ndata: b\n\n", []ev{{"", "a", ""}, {"", "b", ""}}},
		{"multi-line data", "data: a\ndata: b\ndata:\n\n", []ev{{"", "a\nb\n", ""}}},
		{"no space after colon", "data:x\n\n", []ev{{"", "x", ""}}},
		{"only one space removed", "data:  x\n\n", []ev{{"", " x", ""}}},
		{"field without colon", "data\n\n", []ev{{"", "", ""}}},
		{"empty data line dispatches", "data:\n\n", []ev{{"", "", ""}}},
		{"comments", ": keep-alive\ndata: a\n: more\n\n:end\n\n", []ev{{"", "a", ""}}},
		{"CRLF", "event: e\r\ndata: a\r\n\r\ndata: b\r\n\r\n", []ev{{"e", "a", ""}, {"", "b", ""}}},
		{"CR", "data: a\rdata: b\r\r", []ev{{"", "a\nb", ""}}},
		{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\n", []ev{{"", "a\nb\nc", ""}}},
		{"BOM", "\xEF\xBB\xBFdata: a\n\n", []ev{{"", "a", ""}}},
		{"second BOM is data", "\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n", nil},
		{"event name", "event: ping\ndata: {}\n\n", []ev{{"ping", "{}", ""}}},
		{"name reset after dispatch", "event: x\ndata: 1\n\ndata: 2\n\n", []ev{{"x", "1", ""}, {"", "2", ""}}},
		{"no data, no dispatch", "event: x\n\ndata: 2\n\n", []ev{{"", "2", ""}}},
		{"id persists", "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", []ev{{"", "a", "7"}, {"", "b", "7"}, {"", "c", ""}}},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", []ev{{"", "a", "1"}, {"", "b", "1"}}},
		{"retry and unknown ignored", "retry: 10\nfoo: bar\ndata: a\n\n", []ev{{"", "a", ""}}},
		{"unterminated event dropped", "data: a\n\ndata: b\n", []ev{{"", "a", ""}}},
		{"unterminated line dropped", "data: a\n\ndata: b", []ev{{"", "a", ""}}},
		{"value keeps colons", "data: a: b:c\n\n", []ev{{"", "a: b:c", ""}}},
		{"long line", "data: " + long + "\n\n", []ev{{"", long, ""}}},
		{"empty stream", "", nil},
		{"blank lines only", "\n\r\n\r\n\n", nil},
	}
	readers := map[string]func(string) io.Reader{
		"whole":   func(s string) io.Reader { return strings.NewReader(s) },
		"onebyte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"dataerr": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
		"halves":  func(s string) io.Reader { return &splitReader{data: []byte(s), sizes: []int{len(s)/2 + 1}} },
	}
	for _, tt := range tests {
		for rname, mk := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				got, err := collect(NewReader(mk(tt.in)))
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					if len(tt.in) > 200 {
						t.Fatalf("got %d events, want %d", len(got), len(tt.want))
					}
					t.Fatalf("got %v\nwant %v", got, tt.want)
				}
			})
		}
	}
}

func TestTooLarge(t *testing.T) {
	for _, in := range []string{
		"data: " + strings.Repeat("x", 100) + "\n\n",         // complete line
		"data: " + strings.Repeat("x", 100),                  // unterminated
		strings.Repeat("data: 0123456789\n", 20) + "\n",      // joined data
		": " + strings.Repeat("x", 100) + "\ndata: a\n\n",    // a comment counts too
		"data: ok\n\ndata: " + strings.Repeat("y", 200) + "", // after a good event
	} {
		r := NewReader(iotest.OneByteReader(strings.NewReader(in)))
		r.SetMaxEventSize(64)
		_, err := collect(r)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%.20q...: err = %v, want ErrTooLarge", in, err)
		}
		// Sticky.
		if _, err2 := r.Next(); !errors.Is(err2, ErrTooLarge) {
			t.Errorf("second Next: %v", err2)
		}
	}
	// Exactly at the limit is fine.
	r := NewReader(strings.NewReader("data:" + strings.Repeat("x", 59) + "\n\n"))
	r.SetMaxEventSize(64)
	if got, err := collect(r); err != nil || len(got) != 1 {
		t.Fatalf("at limit: %v %v", got, err)
	}
}

func TestReadErrorPassesThrough(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	r := NewReader(src)
	got, err := collect(r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if len(got) != 1 || got[0].Data != "a" {
		t.Fatalf("events before the error: %v", got)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("error not sticky: %v", err)
	}
}

func TestNoProgress(t *testing.T) {
	_, err := collect(NewReader(zeroReader{}))
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
}

func TestNextAtEOF(t *testing.T) {
	r := NewReader(strings.NewReader("data: a\n\n"))
	if e, err := r.Next(); err != nil || string(e.Data) != "a" {
		t.Fatalf("Next = %v, %v", e, err)
	}
	for range 2 {
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("Next at end = %v, want io.EOF", err)
		}
	}
}

func TestEventsBreak(t *testing.T) {
	r := NewReader(strings.NewReader("data: a\n\ndata: b\n\n"))
	for range r.Events() {
		break
	}
	e, err := r.Next()
	if err != nil || string(e.Data) != "b" {
		t.Fatalf("after break: %v %v", e, err)
	}
}

func TestZeroCopyNoAlloc(t *testing.T) {
	in := []byte(strings.Repeat("event: delta\nid: 1\ndata: {\"x\":1}\n\n", 1000))
	src := bytes.NewReader(in)
	r := NewReader(src)
	r.Next() // allocate the buffer and intern name and id
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Next allocates %.1f times per event, want 0", allocs)
	}
}

// splitReader returns data in reads of the given sizes, cycling through
// them, with an occasional empty read.
type splitReader struct {
	data  []byte
	sizes []int
	i     int
}

func (s *splitReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(s.sizes) > 0 {
		n = s.sizes[s.i%len(s.sizes)]
		s.i++
	}
	n = min(n, len(p), len(s.data))
	copy(p, s.data[:n])
	s.data = s.data[n:]
	return n, nil
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// reference is a deliberately naive parser written straight from the
// specification, used as the oracle for fuzzing.
func reference(in []byte, max int) ([]ev, error) {
	in = bytes.TrimPrefix(in, bom)
	var out []ev
	var name, id string
	var data []byte
	hasData := false
	for len(in) > 0 {
		end, next := -1, 0
		for i, c := range in {
			if c == '\n' {
				end, next = i, i+1
				break
			}
			if c == '\r' {
				end, next = i, i+1
				if i+1 < len(in) && in[i+1] == '\n' {
					next = i + 2
				}
				break
			}
		}
		if end < 0 {
			if len(in) > max {
				return out, ErrTooLarge
			}
			break // unterminated: dropped
		}
		line := in[:end]
		in = in[next:]
		if len(line) > max {
			return out, ErrTooLarge
		}
		if len(line) == 0 {
			if hasData {
				out = append(out, ev{name, string(data), id})
			}
			name, data, hasData = "", nil, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
			if len(data) > max {
				return out, ErrTooLarge
			}
		case "event":
			name = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				id = string(value)
			}
		}
	}
	return out, nil
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n",
		"\xEF\xBB\xBFevent: x\r\ndata: 1\r\ndata: 2\r\n\r\n",
		"data: a\rdata: b\r\r:c\r\nid: 9\n\n",
		"data\n\ndata:\n\nid\x00: 1\n\n",
		"data: " + strings.Repeat("z", 90) + "\n\n",
		"data: a\r",
		"\xEF\xBB",
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		const limit = 64
		want, wantErr := reference(in, limit)
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		sizes := make([]int, 1+rng.IntN(8))
		for i := range sizes {
			sizes[i] = rng.IntN(20)
		}
		sizes[0] = max(sizes[0], 1) // some empty reads, never only empty reads
		for _, src := range []io.Reader{
			bytes.NewReader(in),
			iotest.OneByteReader(bytes.NewReader(in)),
			iotest.DataErrReader(bytes.NewReader(in)),
			&splitReader{data: in, sizes: sizes},
		} {
			r := NewReader(src)
			r.SetMaxEventSize(limit)
			got, err := collect(r)
			if !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
				t.Fatalf("%T: err = %v, want %v", src, err, wantErr)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%T: got %v\nwant %v", src, got, want)
			}
		}
	})
}

// benchStream is a provider-like stream: JSON chunks of a few hundred
// bytes, a comment now and then, one multi-line event.
func benchStream(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		if i%50 == 0 {
			b.WriteString(": keep-alive\n\n")
		}
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1758884650,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"token %d"},"logprobs":null,"finish_reason":null}],"usage":null}`+"\n\n", i)
		if i%100 == 0 {
			b.WriteString("event: multi\ndata: line one\ndata: line two\n\n")
		}
	}
	return b.Bytes()
}

func BenchmarkParse(b *testing.B) {
	for _, tc := range []struct {
		name string
		eol  string
	}{{"LF", "\n"}, {"CRLF", "\r\n"}} {
		in := benchStream(4 << 20)
		if tc.eol != "\n" {
			in = bytes.ReplaceAll(in, []byte("\n"), []byte(tc.eol))
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				r := NewReader(bytes.NewReader(in))
				n := 0
				for _, err := range r.Events() {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n == 0 {
					b.Fatal("no events")
				}
			}
		})
	}
}

// A line much longer than the buffer, arriving in small reads, must cost
// linear time: the scan for its end must not restart at every read.
func TestLongLineInSmallReadsIsLinear(t *testing.T) {
	line := strings.Repeat("x", 8<<20)
	src := &splitReader{data: []byte("data: " + line + "\r\n\r\n"), sizes: []int{1 << 10}}
	start := time.Now()
	got, err := collect(NewReader(src))
	if err != nil || len(got) != 1 || len(got[0].Data) != len(line) {
		t.Fatalf("err %v, %d events", err, len(got))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v: quadratic scanning", d)
	}
}

// A Reader that ended gives its buffer back for the next one: the next
// stream's events hold nothing of the last one's, and the ended Reader
// keeps answering with its end.
func TestEndedReaderLendsItsBuffer(t *testing.T) {
	long := "data: " + strings.Repeat("old", 1000) + "\n\n"
	for i := range 3 {
		r := NewReader(strings.NewReader(long + "data: tail\n\nda"))
		got, err := collect(r)
		if err != nil || len(got) != 2 || got[1].Data != "tail" {
			t.Fatalf("round %d: first stream: %v %v", i, got, err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("round %d: Next after the end = %v, want io.EOF", i, err)
		}
		got, err = collect(NewReader(strings.NewReader("data: n")))
		if err != nil || len(got) != 0 {
			t.Fatalf("round %d: an unterminated event of a second stream: %v %v", i, got, err)
		}
		got, err = collect(NewReader(strings.NewReader("data: new\n\n")))
		if err != nil || len(got) != 1 || got[0].Data != "new" {
			t.Fatalf("round %d: second stream: %v %v", i, got, err)
		}
	}
}
