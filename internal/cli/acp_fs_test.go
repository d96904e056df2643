package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestACPClientFileSystem: a client that offers its file system gets the
// reads and writes of read_file and edit, so the model sees the unsaved
// buffer and the edit lands in it, after the permission it grants; the
// disk is left alone.
func TestACPClientFileSystem(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("saved text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_r", "read_file", mustJSON(map[string]any{"file_path": file}))},
		fp.Turn{fp.ToolCall("call_e", "edit", mustJSON(map[string]any{"file_path": file, "old_string": "unsaved", "new_string": "edited"}))},
		fp.Turn{fp.Text("Done.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	r.client.buffers = map[string]string{file: "unsaved text\n"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSessionOffering(t, ctx, dir, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("fix it")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	if len(r.client.asked) != 1 || r.client.asked[0].ToolCall.ToolCallId != "call_e" {
		t.Errorf("permission requests: %+v", r.client.asked)
	}
	// read_file, the edit's precheck and the edit itself each read the
	// buffer.
	if len(r.client.reads) < 2 || r.client.reads[0] != file {
		t.Errorf("client reads = %q", r.client.reads)
	}
	if len(r.client.wrote) != 1 || r.client.buffers[file] != "edited text\n" {
		t.Errorf("client writes = %q, buffer %q", r.client.wrote, r.client.buffers[file])
	}
	if b, _ := os.ReadFile(file); string(b) != "saved text\n" {
		t.Errorf("the disk changed: %q", b)
	}
	got := strings.Join(r.client.updates, "\n")
	if !strings.Contains(got, "unsaved text") {
		t.Errorf("the read did not show the buffer:\n%s", got)
	}
}
