package cli

import (
	"os"
	"path/filepath"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// rewind_files (the Claude Agent SDK's name) puts the files back as they
// were before the user message with that uuid; dry_run only says what
// would change; an unknown uuid is an error.
func TestSDKRewindFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": file, "content": "second\n"}))},
		fp.Turn{fp.Text("written")},
		fp.Turn{fp.ToolCall("w2", "write_file", mustJSON(map[string]any{"file_path": file, "content": "third\n"}))},
		fp.Turn{fp.Text("written again")},
	)
	p, code := startSDK(t, dir, srv, "--approval-mode", "yolo")
	for _, u := range []string{"u-1", "u-2"} {
		m := userMsg("write it")
		m["uuid"] = u
		p.send(m)
		if res := p.next("result", nil); res["subtype"] != "success" {
			t.Fatalf("result %v", res)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "third\n" {
		t.Fatalf("before the rewind the file holds %q", b)
	}
	dry := p.control("r1", map[string]any{"subtype": "rewind_files", "user_message_id": "u-2", "dry_run": true})
	body, _ := dry["response"].(map[string]any)
	if dry["subtype"] != "success" || body["canRewind"] != true || len(body["filesChanged"].([]any)) != 1 {
		t.Fatalf("dry run answered %v", dry)
	}
	if b, _ := os.ReadFile(file); string(b) != "third\n" {
		t.Fatalf("a dry run changed the file: %q", b)
	}
	if r := p.control("r2", map[string]any{"subtype": "rewind_files", "user_message_id": "u-2"}); r["subtype"] != "success" {
		t.Fatalf("rewind answered %v", r)
	}
	if b, _ := os.ReadFile(file); string(b) != "second\n" {
		t.Errorf("after rewinding to before u-2 the file holds %q, want the state after u-1", b)
	}
	if r := p.control("r3", map[string]any{"subtype": "rewind_files", "user_message_id": "u-1"}); r["subtype"] != "success" {
		t.Fatalf("rewind answered %v", r)
	}
	if b, _ := os.ReadFile(file); string(b) != "first\n" {
		t.Errorf("after rewinding to before u-1 the file holds %q", b)
	}
	if r := p.control("r4", map[string]any{"subtype": "rewind_files", "user_message_id": "nope"}); r["subtype"] != "error" {
		t.Errorf("an unknown message id answered %v", r)
	}
	p.exitOf(code)
}
