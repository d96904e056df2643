package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

const key = "sk-live-0123456789abcdef"

func TestString(t *testing.T) {
	r := New([]string{key, "short", "tok\"en/with\\quotes"}, 8)
	in := `401: {"error":"Incorrect API key provided: sk-live-0123456789abcdef"} short`
	got := r.String(in)
	if strings.Contains(got, key) || !strings.Contains(got, "provided: [redacted]") || !strings.Contains(got, "short") {
		t.Errorf("String = %q", got)
	}
	quoted, _ := json.Marshal(map[string]string{"e": "x tok\"en/with\\quotes y"})
	if got := r.String(string(quoted)); got != `{"e":"x [redacted] y"}` {
		t.Errorf("JSON-escaped secret: %q", got)
	}
	var nilR *Redactor
	if nilR.String(key) != key || New(nil, 8) != nil {
		t.Error("a Redactor without secrets changed something")
	}
}

// A secret split across writes, at every split point, never reaches the
// underlying writer; text that only starts like a secret is let through.
func TestWriterCatchesSplitSecrets(t *testing.T) {
	r := New([]string{key, "sk-live-other-secret"}, 8)
	text := "before " + key + " after sk-live-0 done"
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j++ {
			var out bytes.Buffer
			w := r.Writer(&out)
			for _, part := range []string{text[:i], text[i:j], text[j:]} {
				if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if want := "before [redacted] after sk-live-0 done"; out.String() != want {
				t.Fatalf("split at %d,%d: %q, want %q", i, j, out.String(), want)
			}
		}
	}
}

func TestWriterHoldsOnlyPossibleSecrets(t *testing.T) {
	r := New([]string{key}, 8)
	var out bytes.Buffer
	w := r.Writer(&out)
	w.Write([]byte("line one\nends with sk-li"))
	if out.String() != "line one\nends with " {
		t.Errorf("written before the rest is known: %q", out.String())
	}
	w.Write([]byte("ne\n"))
	if out.String() != "line one\nends with sk-line\n" {
		t.Errorf("after the rest: %q", out.String())
	}
}

func FuzzWriter(f *testing.F) {
	f.Add("abc sk-live-0123456789abcdef xyz", 3, 9)
	f.Add("sk-live-sk-live-0123456789abcdef", 1, 20)
	f.Add("", 0, 0)
	f.Add("sk-live-0123456789abcdef-second", 5, 24)
	f.Fuzz(func(t *testing.T, text string, i, j int) {
		second := "0123456789abcdef-second"
		r := New([]string{key, second}, 8)
		i, j = clamp(i, len(text)), clamp(j, len(text))
		if i > j {
			i, j = j, i
		}
		var out bytes.Buffer
		w := r.Writer(&out)
		w.Write([]byte(text[:i]))
		w.Write([]byte(text[i:j]))
		w.Write([]byte(text[j:]))
		w.Flush()
		if strings.Contains(out.String(), key) || strings.Contains(out.String(), second) {
			t.Fatalf("%q split at %d,%d printed the key: %q", text, i, j, out.String())
		}
		if want := r.String(text); !strings.Contains(text, key[:3]) && !strings.Contains(text, second[:3]) && out.String() != want {
			t.Fatalf("%q changed to %q", text, out.String())
		}
	})
}

func clamp(i, n int) int {
	if i < 0 {
		i = -i
	}
	if n == 0 {
		return 0
	}
	return i % (n + 1)
}

// BenchmarkWriter writes a stream-json-sized line through a Redactor of
// a dozen secrets, the cost every line of ply's output pays.
func BenchmarkWriter(b *testing.B) {
	var secrets []string
	for i := range 12 {
		secrets = append(secrets, strings.Repeat(string(rune('a'+i)), 6)+"-secret-value-0123456789")
	}
	r := New(secrets, 8)
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("some ordinary text, ", 50) + `"}]}}` + "\n")
	w := r.Writer(io.Discard)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		w.Write(line)
	}
}
