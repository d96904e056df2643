package chat

import "testing"

var windowMessages = []struct {
	msg  string
	want windowReport
}{
	{"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
		windowReport{Max: 8192, Prompt: 9000}},
	{"This model's maximum context length is 128000 tokens. However, you requested 130500 tokens (126404 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
		windowReport{Max: 128000, Prompt: 126404, Completion: 4096}},
	{"prompt is too long: 210000 tokens > 200000 maximum", windowReport{Max: 200000, Prompt: 210000}},
	{"The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).", windowReport{Max: 1048576, Prompt: 1234567}},
	{"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it", windowReport{Max: 4096, Prompt: 5000}},
	{"prompt is too long: 210,000 tokens > 200,000 maximum", windowReport{Max: 200000, Prompt: 210000}},
	{"This model's maximum context length is 8192 tokens", windowReport{Max: 8192}},
	{"context_length_exceeded", windowReport{}},
	{"", windowReport{}},
	{"maximum context length is 99999999999999999999 tokens", windowReport{}},
}

func TestParseWindowReport(t *testing.T) {
	for _, tc := range windowMessages {
		if got := parseWindowReport(tc.msg); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.msg, got, tc.want)
		}
	}
}

func FuzzParseWindowReport(f *testing.F) {
	for _, tc := range windowMessages {
		f.Add(tc.msg)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		r := parseWindowReport(msg)
		if r.Max < 0 || r.Prompt < 0 || r.Completion < 0 {
			t.Fatalf("negative size from %q: %+v", msg, r)
		}
		if r != parseWindowReport(msg) {
			t.Fatal("not deterministic")
		}
	})
}
