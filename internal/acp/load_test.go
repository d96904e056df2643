package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestReplay(t *testing.T) {
	h := []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{{Text: "fix a.txt"}}},
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: "thinking", Thought: true}, {Text: "On it."},
			{Call: &llm.FunctionCall{ID: "c1", Name: "edit", Args: `{"file_path":"/w/a.txt","old_string":"x","new_string":"y"}`}},
			{Call: &llm.FunctionCall{ID: "c2", Name: "run_shell_command", Args: `{"command":"false"}`}}}},
		{Role: llm.RoleUser, Parts: []llm.Part{
			{Response: &llm.FunctionResponse{ID: "c1", Name: "edit", Output: "ok"}},
			{Response: &llm.FunctionResponse{ID: "c2", Name: "run_shell_command", Output: "exit 1", IsError: true}}}},
		{Role: llm.RoleModel, Parts: []llm.Part{{Text: "Done."}}},
	}
	var got []string
	for _, u := range replay(h) {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	want := []string{
		`"sessionUpdate":"user_message_chunk"`, `"sessionUpdate":"agent_thought_chunk"`, `"sessionUpdate":"agent_message_chunk"`,
		`"sessionUpdate":"tool_call"`, `"sessionUpdate":"tool_call"`,
		`"newText":"y"`, `"status":"failed"`, `"text":"Done."`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d updates, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("update %d = %s, want it to hold %s", i, got[i], want[i])
		}
	}
}
