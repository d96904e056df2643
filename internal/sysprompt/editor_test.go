package sysprompt

import (
	"strings"
	"testing"
)

func TestEditorIsSaid(t *testing.T) {
	if p := Build(Env{Workspace: "/w"}); strings.Contains(p, "editor") && strings.Contains(p, "Agent Client Protocol") {
		t.Fatal("a session outside an editor says it is in one")
	}
	p := Build(Env{Workspace: "/w", Editor: EditorACP})
	if !strings.Contains(p, "The user works in their editor") || !strings.Contains(p, "Agent Client Protocol") {
		t.Fatalf("the prompt does not say the user is in an editor:\n%s", p)
	}
}
