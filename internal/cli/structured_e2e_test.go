package cli

import (
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// A run with --json-schema whose model answers in plain text is told once
// to call structured_output; a second plain answer fails the run instead
// of exiting 0 with no object.
func TestJSONSchemaPlainAnswer(t *testing.T) {
	t.Run("told, then calls it", func(t *testing.T) {
		srv := fp.New(t, fp.Turn{fp.Text("the answer is 7")}, fp.Turn{fp.ToolCall("o1", "structured_output", `{"answer":7}`)})
		r := runPly(t, t.TempDir(), srv, "", "-y", "--json-schema", answerSchema, "-p", "compute")
		if r.code != 0 || strings.TrimSpace(r.stdout) != `{"answer":7}` {
			t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
		}
		msgs := srv.Requests()[1].Messages
		if last := msgs[len(msgs)-1].Text(); !strings.Contains(last, "Call structured_output now") {
			t.Fatalf("the second request ends with %q", last)
		}
	})
	t.Run("answers in text twice", func(t *testing.T) {
		srv := fp.New(t, fp.Turn{fp.Text("7")}, fp.Turn{fp.Text("still 7")})
		r := runPly(t, t.TempDir(), srv, "", "-y", "-o", "stream-json", "--json-schema", answerSchema, "-p", "compute")
		if r.code != 1 || !strings.Contains(r.stdout, `"is_error":true`) ||
			!strings.Contains(r.stdout, "no structured result was produced") || !strings.Contains(r.stdout, `"subtype":"error_max_structured_output_retries"`) || len(srv.Requests()) != 2 {
			t.Fatalf("exit %d after %d requests: %s", r.code, len(srv.Requests()), r.stdout)
		}
	})
}
