package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func mcpHarness(t *testing.T) (*harness, *recorder, *[]string) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	var got []string
	h.m.cfg.Session = struct {
		bare
		MCPPrompter
	}{bare{}, prompter{list: func() []MCPPrompt {
		return []MCPPrompt{{Command: "/mcp__kb__explain", Description: "Explain a key.", Args: []string{"key"}}}
	}, get: func(_ context.Context, command, args string) (string, error) {
		got = append(got, command+"|"+args)
		if args == "" {
			return "", errors.New("missing required argument(s): key")
		}
		return "Explain the key " + args + " in one line.", nil
	}}}
	return h, rec, &got
}

// run runs a command as Enter would, and the message its work sends back.
func (h *harness) runCommand(line string) {
	h.t.Helper()
	cmd := h.m.command(line)
	if cmd == nil {
		return
	}
	if msg := cmd(); msg != nil {
		h.update(msg)
	}
}

func TestMCPPromptCommand(t *testing.T) {
	h, rec, got := mcpHarness(t)
	h.runCommand("/mcp__kb__explain colour")
	h.pumpUntil(isDone)
	rounds := rec.rounds()
	if len(rounds) != 1 || rounds[0].parts[0].Text != "Explain the key colour in one line." {
		t.Fatalf("sent %+v", rounds)
	}
	if len(*got) != 1 || (*got)[0] != "/mcp__kb__explain|colour" {
		t.Errorf("GetMCPPrompt calls = %v", *got)
	}
	if !strings.Contains(h.printed(), "/mcp__kb__explain colour") {
		t.Errorf("the typed command is not shown:\n%s", h.printed())
	}

	h.runCommand("/mcp__kb__explain")
	if len(rec.rounds()) != 1 || !strings.Contains(h.printed(), "missing required argument(s): key") {
		t.Errorf("a failed prompt: rounds %d\n%s", len(rec.rounds()), h.printed())
	}

	h.runCommand("/mcp")
	if !strings.Contains(h.printed(), "/mcp__kb__explain <key>") || !strings.Contains(h.printed(), "Explain a key.") {
		t.Errorf("/mcp does not list the prompt:\n%s", h.printed())
	}
}

func TestMCPPromptCommandWithoutMCP(t *testing.T) {
	h := newHarness(t, &recorder{}, nil)
	h.runCommand("/mcp__kb__explain colour")
	if !strings.Contains(h.printed(), "unknown command /mcp__kb__explain") {
		t.Errorf("without MCP:\n%s", h.printed())
	}
}
