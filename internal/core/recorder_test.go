package core

import (
	"testing"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/tools"
)

// A round boundary is made durable (fsync) unless the round's calls all
// only read: before a write, a command or a tool not known, and at the end
// of an interaction, the transcript is synced.
func TestCheckpointSyncsUnlessTheCallsOnlyRead(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.NewReadFile(ws), tools.NewWriteFile(ws))
	reply := func(names ...string) []llm.Message {
		m := llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "working"}}, FinishReason: llm.FinishToolCalls}
		for i, n := range names {
			m.Parts = append(m.Parts, llm.Part{Call: &llm.FunctionCall{ID: string(rune('a' + i)), Name: n, Args: "{}"}})
		}
		if len(names) == 0 {
			m.FinishReason = llm.FinishStop
		}
		return []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Text: "go"}}}, m}
	}
	for _, c := range []struct {
		name      string
		history   []llm.Message
		readsOnly bool
	}{
		{"reads", reply("read_file", "read_file"), true},
		{"a write among reads", reply("read_file", "write_file"), false},
		{"a tool not known", reply("read_file", "no_such_tool"), false},
		{"no calls", reply(), false},
		{"no reply", reply()[:1], false},
	} {
		s := &Session{reg: reg, chat: chat.New(nil, chat.Config{}, c.history)}
		if got := (record{s}).readsOnly(); got != c.readsOnly {
			t.Errorf("%s: readsOnly = %v, want %v", c.name, got, c.readsOnly)
		}
	}
}
