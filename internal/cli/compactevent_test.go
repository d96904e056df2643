package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// When the chat summarises the history, stream-json says so with a
// system message of subtype compact_boundary, as Claude Code's does, so an
// SDK consumer knows the model now sees a summary of what came before.
func TestStreamJSONSaysWhenHistoryWasCompacted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("a line of a big file\n", 3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("r1", "read_file", `{"file_path":"big.txt"}`)},
		fp.Turn{fp.Status(400, `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`, nil)},
		fp.Turn{fp.Text("SUMMARY of the work so far")},
		fp.Turn{fp.Text("after compression.")},
	)
	r := runPly(t, dir, srv, "", "-y", "-o", "stream-json", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var found map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if m["type"] == "system" && m["subtype"] == "compact_boundary" {
			found = m
		}
	}
	meta, _ := found["compact_metadata"].(map[string]any)
	if found == nil || meta["trigger"] != "auto" || meta["pre_tokens"].(float64) <= 0 {
		t.Fatalf("no compact_boundary message with its metadata:\n%s", r.stdout)
	}
}
