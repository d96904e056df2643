package tui

import (
	"slices"
	"strings"
	"testing"
)

func TestHelpGroupsCommandsAndKeys(t *testing.T) {
	h := newHarness(t, nil, nil)
	saved := slices.Clone(commands)
	defer func() { commands = saved }()
	registerCommand(slashCommand{name: "/zz-test", help: "a command no group names"})
	text := h.m.helpText()
	order := []string{"Conversation:", "/clear", "/export", "Model, approval and look:", "/model", "/theme", "What is going on:", "/context", "/diff",
		"Other:", "/zz-test", "/quit", "Keys at the prompt:", "!command", "While the agent", "In the approval dialog:"}
	at := 0
	for _, s := range order {
		i := strings.Index(text[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", s, text)
		}
		at += i
	}
	if strings.Count(text, "/clear ") != 1 {
		t.Fatal("a command listed twice")
	}
}
