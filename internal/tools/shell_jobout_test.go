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
