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

// A write whose path resolves outside the workspace fails before anyone
// is asked: no session/request_permission goes to the editor for a call
// that cannot run, whether the path is outside as written or through a
// symbolic link, for write_file and for edit.
func TestACPOutsideWriteFailsBeforeAsking(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{
			fp.ToolCall("w_abs", "write_file", mustJSON(map[string]any{"file_path": filepath.Join(outside, "new.txt"), "content": "x"})),
			fp.ToolCall("w_link", "write_file", mustJSON(map[string]any{"file_path": filepath.Join(dir, "escape", "linked.txt"), "content": "x"})),
			fp.ToolCall("e_abs", "edit", mustJSON(map[string]any{"file_path": victim, "old_string": "keep", "new_string": "gone"})),
			fp.ToolCall("e_new", "edit", mustJSON(map[string]any{"file_path": filepath.Join(outside, "created.txt"), "old_string": "", "new_string": "x"})),
		},
		fp.Turn{fp.Text("Done.")},
	)
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	r.client.buffers = map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSessionOffering(t, ctx, dir, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	resp, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("write outside")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", resp, err)
	}
	r.client.mu.Lock()
	asked, wrote := r.client.asked, r.client.wrote
	r.client.mu.Unlock()
	for _, a := range asked {
		t.Errorf("permission was requested for %s, which cannot run", a.ToolCall.ToolCallId)
	}
	if len(wrote) != 0 {
		t.Errorf("the client was asked to write %q", wrote)
	}
	outs := toolOutputs(srv)
	for _, id := range []string{"w_abs", "w_link", "e_abs", "e_new"} {
		if !strings.Contains(outs[id], "outside the workspace") {
			t.Errorf("%s answered %q, want the outside-the-workspace error", id, outs[id])
		}
	}
	entries, _ := os.ReadDir(outside)
	if b, _ := os.ReadFile(victim); len(entries) != 1 || string(b) != "keep\n" {
		t.Errorf("the outside directory changed: %d entries, victim %q", len(entries), b)
	}
}

// Headless, where no one can approve, the model hears why an outside write
// cannot run, not that it lacked approval: an approval would not help.
// (In default mode such a run does not offer write_file at all; auto-edit
// does.)
func TestHeadlessOutsideWriteSaysWhy(t *testing.T) {
	outside := t.TempDir()
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("w", "write_file", mustJSON(map[string]any{"file_path": filepath.Join(outside, "new.txt"), "content": "x"}))},
		fp.Turn{fp.Text("Done.")},
	)
	if r := runPly(t, t.TempDir(), srv, "", "--approval-mode", "auto-edit", "-p", "write outside"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if out := toolOutputs(srv)["w"]; !strings.Contains(out, "outside the workspace") || strings.Contains(out, "approval") {
		t.Errorf("the outside write answered %q, want the outside-the-workspace error alone", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("the outside write ran: %v", err)
	}
}
