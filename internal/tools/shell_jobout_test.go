package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJobOutputSince(t *testing.T) {
	o := newJobOutput(8, nil)
	o.Write([]byte("abc"))
	b, lost, end := o.since(0)
	if string(b) != "abc" || lost != 0 || end != 3 {
		t.Fatalf("since(0) = %q, %d, %d", b, lost, end)
	}
	o.Write([]byte("defgh"))
	if b, lost, end = o.since(end); string(b) != "defgh" || lost != 0 || end != 8 {
		t.Fatalf("since(3) = %q, %d, %d", b, lost, end)
	}
	// The ring holds 8 bytes: a read from 0 now loses what was pushed out.
	o.Write([]byte("ijk"))
	if b, lost, end = o.since(0); string(b) != "defghijk" || lost != 3 || end != 11 {
		t.Fatalf("after wrap since(0) = %q, %d, %d", b, lost, end)
	}
	if b, lost, _ = o.since(9); string(b) != "jk" || lost != 0 {
		t.Fatalf("since(9) = %q, %d", b, lost)
	}
	if b, _, end = o.since(11); len(b) != 0 || end != 11 {
		t.Fatalf("since(end) = %q, %d", b, end)
	}
	// One write larger than the ring keeps its last bytes.
	o.Write([]byte("0123456789XYZ"))
	if b, lost, end = o.since(11); string(b) != "56789XYZ" || lost != 5 || end != 24 {
		t.Fatalf("big write since(11) = %q, %d, %d", b, lost, end)
	}
	if got := string(o.tail(3)); got != "XYZ" {
		t.Fatalf("tail(3) = %q", got)
	}
}

func TestJobOutputFileKeepsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	o := newJobOutput(4, f)
	var want bytes.Buffer
	for i := range 100 {
		line := strings.Repeat(string(rune('a'+i%26)), i%7) + "\n"
		want.WriteString(line)
		o.Write([]byte(line))
	}
	o.close()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the file holds %d bytes, want %d", len(got), want.Len())
	}
	if o.path() != path {
		t.Fatalf("path() = %q", o.path())
	}
}

func TestJobOutputChangedAfter(t *testing.T) {
	o := newJobOutput(16, nil)
	ch := o.changedAfter(0)
	select {
	case <-ch:
		t.Fatal("signalled before any output")
	default:
	}
	go o.Write([]byte("x"))
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no signal after a write")
	}
	// Output already past the offset: signalled at once.
	select {
	case <-o.changedAfter(0):
	default:
		t.Fatal("output past the offset was not signalled at once")
	}
}

func TestJobOutputSinceKeepsUTF8(t *testing.T) {
	o := newJobOutput(4, nil)
	o.Write([]byte("aé€")) // 1 + 2 + 3 bytes: the ring keeps "\xa9€"
	b, lost, _ := o.since(0)
	if s := jobText(b); s != "€" || lost != 2 {
		t.Fatalf("since(0) = %q (%q), lost %d", b, s, lost)
	}
}

// FuzzJobOutput writes pieces of data into a small ring and checks every
// read against the whole stream: what since returns is the stream's end
// from the asked offset, lost counts exactly what the ring no longer
// holds, and the file keeps everything.
func FuzzJobOutput(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), uint8(3), uint8(4))
	f.Add([]byte("0123456789abcdefghij"), uint8(1), uint8(7))
	f.Add([]byte("é€\U0001F600"), uint8(16), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, size, chunk uint8) {
		path := filepath.Join(t.TempDir(), "out")
		file, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		o := newJobOutput(int(size%32)+1, file)
		ring := int64(size%32) + 1
		step := int(chunk%9) + 1
		var off int64
		for i := 0; i < len(data); i += step {
			o.Write(data[i:min(i+step, len(data))])
			total := int64(min(i+step, len(data)))
			for _, from := range []int64{0, off, total / 2, total} {
				b, lost, end := o.since(from)
				held := min(total, ring)
				if end != total {
					t.Fatalf("end %d, want %d", end, total)
				}
				wantLost := max(total-held-from, 0)
				if lost != wantLost {
					t.Fatalf("since(%d) lost %d, want %d", from, lost, wantLost)
				}
				if want := data[max(from, total-held):total]; !bytes.Equal(b, want) {
					t.Fatalf("since(%d) = %q, want %q", from, b, want)
				}
			}
			off = total
		}
		o.close()
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("file %q, %v; want %q", got, err, data)
		}
		_ = jobText(o.tail(len(data)))
	})
}

// BenchmarkJobOutputWrite measures keeping a job's output: the ring and
// the file, in the 32 KiB pieces a pipe read gives.
func BenchmarkJobOutputWrite(b *testing.B) {
	file, err := os.Create(filepath.Join(b.TempDir(), "out"))
	if err != nil {
		b.Fatal(err)
	}
	o := newJobOutput(shellJobRing, file)
	defer o.close()
	p := bytes.Repeat([]byte("a line of build output\n"), 32<<10/23)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if o.saved > shellSavedMax/2 {
			o.mu.Lock()
			o.saved, o.full = 0, false
			_, _ = o.file.Seek(0, 0)
			o.mu.Unlock()
		}
		o.Write(p)
	}
}
