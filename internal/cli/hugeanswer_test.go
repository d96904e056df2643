package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// A refusal of a window smaller than ply assumed (a model the settings do
// not describe).
const refused16k = `{"error":{"message":"This model's maximum context length is 16000 tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}`

// hugeText is an answer of about n bytes.
func hugeText(n int) string {
	return strings.Repeat("a line of the model's very long answer\n", n/39+1)
}

// After an answer that alone no longer fits the window, the error says how
// to go on: rewind the conversation to before the prompt that asked for it,
// with that prompt's real number.
func TestAnswerThatFillsTheWindowSaysHowToGoOn(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("small\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t)
	longSettings(t, home, srv.URL, longWindow)
	srv.Append(fp.Turn{fp.When(longSystemMark), fp.Text("hi.")})
	if r := runLong(dir, home, "-y", "-p", "hello"); r.code != 0 {
		t.Fatalf("prompt 1: exit %d: %s", r.code, r.stderr)
	}
	srv.Append(fp.Turn{fp.When(longSystemMark), fp.Text("ok.")})
	if r := runLong(dir, home, "-y", "--continue", "-p", "and now"); r.code != 0 {
		t.Fatalf("prompt 2: exit %d: %s", r.code, r.stderr)
	}
	// Prompt 3 is answered with 200 KB and a call: the next request holds
	// the answer, which no summary may replace (it is the current turn's).
	srv.Append(
		fp.Turn{fp.When(longSystemMark), fp.Text(hugeText(200 << 10)), fp.ToolCall("c1", "read_file", `{"file_path":"small.txt"}`)},
		fp.Turn{fp.When(longSystemMark), fp.Status(400, fmt.Sprintf(refused16k, 52000), nil)},
	)
	for i := range 4 {
		srv.Append(fp.Turn{fp.When(longSummary), fp.Text(fmt.Sprintf("SUMMARY %d", i))})
	}
	r := runLong(dir, home, "-y", "--continue", "-p", "write a lot")
	if r.code == 0 {
		t.Fatalf("a conversation that cannot fit must not end as success; stdout %.200q", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	t.Logf("the error: %s", lines[len(lines)-1])
	if !strings.Contains(r.stderr, "ply rewind 3 --conversation") {
		t.Fatalf("the error should say how to go on (ply rewind 3 --conversation):\n%s", r.stderr[max(0, len(r.stderr)-1000):])
	}
}

// A summary request never exceeds the window, even when the provider's
// refusal states a window smaller than the one ply assumed.
func TestSummaryRequestFitsTheWindowTheProviderStated(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text(hugeText(200 << 10))})
	if r := runIn(t, dir, home, srv, "-y", "-p", "write a lot"); r.code != 0 {
		t.Fatalf("prompt 1: exit %d: %s", r.code, r.stderr)
	}
	srv.Append(fp.Turn{fp.Status(400, fmt.Sprintf(refused16k, 56000), nil)})
	for i := range 4 {
		srv.Append(fp.Turn{fp.When(longSummary), fp.Text(fmt.Sprintf("SUMMARY %d", i))})
	}
	srv.Append(fp.Turn{fp.Text("done.")})
	r := runIn(t, dir, home, srv, "-y", "--continue", "-p", "go on")
	summaries := 0
	for i, q := range srv.Requests() {
		if !strings.Contains(string(q.Raw), longSummary) {
			continue
		}
		summaries++
		// About four bytes a token; the body's JSON adds a little.
		if len(q.Raw) > 16000*4 {
			t.Errorf("summary request %d is %d bytes, more than a 16,000-token window holds", i, len(q.Raw))
		}
	}
	if summaries == 0 {
		t.Fatalf("no summary was asked for (exit %d):\n%s", r.code, r.stderr)
	}
}
