package tools

import (
	"bufio"
	"io"
	"sync"
)

// streamBufSize is the buffer read_file and grep_search stream a file
// through; memory use does not grow with the file.
const streamBufSize = 64 << 10

// A read_file or grep_search call would otherwise take its buffer from
// fresh memory, which the process then faults in page by page: on a
// virtual machine where a page fault costs about 10 µs, 64 KiB of it cost
// more than reading a page of a file. The pools keep buffers of
// streamBufSize only; one a long line grew is left to the collector.
var (
	lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, streamBufSize) }}
	scanBufs    = sync.Pool{New: func() any { b := make([]byte, streamBufSize); return &b }}
)

// getLineReader returns a pooled reader of r; putLineReader gives it back
// once nothing holds a slice of its buffer.
func getLineReader(r io.Reader) *bufio.Reader {
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

func putLineReader(br *bufio.Reader) {
	br.Reset(nil)
	lineReaders.Put(br)
}

// getScanBuf returns a pooled buffer of streamBufSize bytes; putScanBuf
// gives back a buffer of that size, and drops any other.
func getScanBuf() []byte { return *scanBufs.Get().(*[]byte) }

func putScanBuf(b []byte) {
	if cap(b) == streamBufSize {
		b = b[:streamBufSize]
		scanBufs.Put(&b)
	}
}
