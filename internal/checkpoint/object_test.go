package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// A stored object decodes to its content, compressed or not; what comes
// back without an error is always size bytes of the content hash names.
func FuzzDecodeObject(f *testing.F) {
	text := []byte(strings.Repeat("package main // a line that compresses\n", 40))
	for _, seed := range [][]byte{encodeObject(text), text, []byte("short"), zstdMagic, append(zstdMagic, 0, 0, 0, 0)} {
		f.Add(seed, int64(len(text)))
	}
	sum := sha256.Sum256(text)
	want := hex.EncodeToString(sum[:])
	f.Fuzz(func(t *testing.T, raw []byte, size int64) {
		for _, c := range []struct {
			hash string
			size int64
		}{{want, int64(len(text))}, {want, size}} {
			data, err := decodeObject(raw, c.hash, c.size)
			if err == nil && (int64(len(data)) != c.size || !hashIs(data, c.hash)) {
				t.Fatalf("decoded %d bytes that are not the content (size %d)", len(data), c.size)
			}
		}
	})
}

func TestEncodeObject(t *testing.T) {
	text := []byte(strings.Repeat("package main // a line that compresses\n", 40))
	for _, c := range []struct {
		name       string
		data       []byte
		compressed bool
	}{
		{"text", text, true},
		{"small", []byte("package main\n"), false},
		{"incompressible", encodeObject(text), false},
	} {
		obj := encodeObject(c.data)
		if got := len(obj) < len(c.data); got != c.compressed {
			t.Errorf("%s: compressed %v, want %v", c.name, got, c.compressed)
		}
		sum := sha256.Sum256(c.data)
		back, err := decodeObject(obj, hex.EncodeToString(sum[:]), int64(len(c.data)))
		if err != nil || string(back) != string(c.data) {
			t.Errorf("%s: decoded %q, %v", c.name, back, err)
		}
	}
}

// BenchmarkObject is the cost of storing and reading back one content of
// a source file's size: compressing it, and decoding it with its checks.
func BenchmarkObject(b *testing.B) {
	text := []byte(strings.Repeat("func (s *Store) putBlob(hash string, data []byte) (wrote bool, err error) {\n", 40))
	sum := sha256.Sum256(text)
	hash := hex.EncodeToString(sum[:])
	obj := encodeObject(text)
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			encodeObject(text)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if _, err := decodeObject(obj, hash, int64(len(text))); err != nil {
				b.Fatal(err)
			}
		}
	})
}
