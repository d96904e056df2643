package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

var testCommands = []Command{{Name: "compress"}, {Name: "init", Hint: "what to set up"}}

func TestCommandOf(t *testing.T) {
	for _, c := range []struct {
		prompt, name, args string
	}{
		{"/compress", "compress", ""},
		{"  /init  the tests ", "init", "the tests"},
		{"/compressor", "", ""},
		{"compress", "", ""},
		{"/", "", ""},
		{"please /compress", "", ""},
	} {
		cmd, args := commandOf([]sdk.ContentBlock{sdk.TextBlock(c.prompt)}, testCommands)
		name := ""
		if cmd != nil {
			name = cmd.Name
		}
		if name != c.name || args != c.args {
			t.Errorf("commandOf(%q) = %q, %q; want %q, %q", c.prompt, name, args, c.name, c.args)
		}
	}
	// A command with more blocks (an attached file) is a prompt.
	if cmd, _ := commandOf([]sdk.ContentBlock{sdk.TextBlock("/compress"), sdk.TextBlock("x")}, testCommands); cmd != nil {
		t.Error("a two-block prompt ran a command")
	}
	got := availableCommands(testCommands)
	if len(got) != 2 || got[0].Input != nil || got[1].Input == nil || got[1].Input.Unstructured.Hint != "what to set up" {
		t.Errorf("availableCommands = %+v", got)
	}
}

func FuzzCommandOf(f *testing.F) {
	for _, s := range []string{"/compress", "/init x y", "/", "", " /compress\n", "/\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cmd, args := commandOf([]sdk.ContentBlock{sdk.TextBlock(s)}, testCommands)
		if cmd == nil {
			if args != "" {
				t.Fatalf("no command but args %q", args)
			}
			return
		}
		if !strings.HasPrefix(strings.TrimSpace(s), "/"+cmd.Name) || strings.TrimSpace(args) != args {
			t.Fatalf("commandOf(%q) = %q, %q", s, cmd.Name, args)
		}
	})
}
