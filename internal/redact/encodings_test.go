package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// special has characters that percent-encoding escapes and bytes whose
// base64 differs between the standard and the URL alphabet.
const special = "sk/live+key=abc&12?~\xfb\xff"

// word is a secret with letters of both cases.
const word = "Sk-Live-Key-AbCdEf"

// encodedForms are the ways a secret is commonly printed besides itself.
func encodedForms(s string) map[string]string {
	forms := map[string]string{
		"base64":          base64.StdEncoding.EncodeToString([]byte(s)),
		"base64 raw":      base64.RawStdEncoding.EncodeToString([]byte(s)),
		"base64 url":      base64.URLEncoding.EncodeToString([]byte(s)),
		"base64 url raw":  base64.RawURLEncoding.EncodeToString([]byte(s)),
		"query escaped":   url.QueryEscape(s),
		"path escaped":    url.PathEscape(s),
		"lower-case hex%": lowerPercent(url.QueryEscape(s)),
		"hex":             hex.EncodeToString([]byte(s)),
		"upper-case hex":  strings.ToUpper(hex.EncodeToString([]byte(s))),
	}
	if utf8.ValidString(s) { // case makes sense of text
		forms["upper case"], forms["lower case"] = strings.ToUpper(s), strings.ToLower(s)
	}
	return forms
}

// lowerPercent writes the hex digits of %XX escapes in lower case, as
// some encoders do.
func lowerPercent(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = bytes.ToLower(b[i+1 : i+2])[0], bytes.ToLower(b[i+2 : i+3])[0]
		}
	}
	return string(b)
}

func TestEncodedSecretsAreRedacted(t *testing.T) {
	r := New([]string{key, special, word}, 8)
	for _, secret := range []string{key, special, word} {
		for name, enc := range encodedForms(secret) {
			in := "before " + enc + " after"
			got := r.String(in)
			if strings.Contains(got, enc) || !strings.Contains(got, Mark) {
				t.Errorf("%s of %q: String(%q) = %q", name, secret, in, got)
			}
			// Through a Writer, split anywhere.
			for i := 0; i <= len(in); i++ {
				var out bytes.Buffer
				w := r.Writer(&out)
				w.Write([]byte(in[:i]))
				w.Write([]byte(in[i:]))
				w.Flush()
				if strings.Contains(out.String(), enc) || !strings.Contains(out.String(), Mark) {
					t.Fatalf("%s of %q split at %d: %q", name, secret, i, out.String())
				}
			}
		}
	}
}

// A secret inside a longer base64 stream ("user:key" of basic
// authentication, a base64 JSON blob) at any of the three alignments:
// what is left of the stream is the encoding of the text around the
// secret and at most two characters on each side that mix its bits with
// the neighbours'.
func TestSecretInsideBase64StreamIsRedacted(t *testing.T) {
	r := New([]string{key, special}, 8)
	for _, secret := range []string{key, special} {
		for _, prefix := range []string{"user:", "ab:", "a:", "x"} {
			for _, suffix := range []string{"", "!", "ab", "\n{json}"} {
				for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
					stream := enc.EncodeToString([]byte(prefix + secret + suffix))
					got := r.String("Authorization: Basic " + stream + " end")
					rest, ok := strings.CutPrefix(got, "Authorization: Basic ")
					if !ok || !strings.Contains(rest, Mark) {
						t.Fatalf("%q in %q: %q", secret, stream, got)
					}
					left := len(strings.TrimSuffix(strings.Replace(rest, Mark, "", 1), " end"))
					allowed := (len(prefix)*4+2)/3 + 2 + (len(suffix)*4+2)/3 + 2 + 2
					if left > allowed {
						t.Errorf("%q in %q: %d base64 characters left, at most %d: %q", secret, stream, left, allowed, got)
					}
				}
			}
		}
	}
}

// Any secret of redactable length is redacted from a base64 stream that
// holds it among any other bytes, leaving at most the characters that
// mix its bits with theirs.
func FuzzSecretInBase64Stream(f *testing.F) {
	f.Add("sk-live-0123456789abcdef", "user:", "")
	f.Add(special, "x", "\n")
	f.Add("\x00\x00\x00\x00\x00\x00\x00\x00", "", "ab")
	f.Fuzz(func(t *testing.T, secret, prefix, suffix string) {
		if len(secret) < 8 || len(secret) > 256 || strings.TrimSpace(secret) == "" || len(prefix) > 64 || len(suffix) > 64 {
			return
		}
		r := New([]string{secret}, 8)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			stream := enc.EncodeToString([]byte(prefix + secret + suffix))
			got := r.String(stream)
			left := len(strings.ReplaceAll(got, Mark, ""))
			allowed := (len(prefix)*4+2)/3 + 2 + (len(suffix)*4+2)/3 + 2 + 2
			if !strings.Contains(got, Mark) || left > allowed {
				t.Fatalf("%q in %q: %q", secret, stream, got)
			}
		}
	})
}
