package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestContextCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.cfg.Session = struct {
		bare
		ContextMeter
	}{bare{}, meter{use: func() ContextUse {
		return ContextUse{Window: 128000, System: 3200, Tools: 5100, History: 12000, Total: 20300, Reported: 19800}
	}}}
	h.typeText("/context")
	h.enter()
	p := h.printed()
	for _, want := range []string{"Context window of test-model: 128k tokens", "system prompt     3.2k    2.5%", "tools             5.1k    4.0%",
		"conversation       12k    9.4%", "total              20k   15.9%", "free              108k   84.1%", "the provider counted 20k prompt tokens"} {
		if !strings.Contains(p, want) {
			t.Errorf("/context lacks %q:\n%s", want, p)
		}
	}
}

func TestPermissionsCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	rules := []RuleInfo{{List: "deny", Rule: "Read(.env)", Source: "/p/.ply/settings.json"}, {List: "allow", Rule: "Bash(git status:*)", Source: "this session"}}
	var edits []string
	h.m.cfg.Session = struct {
		bare
		RuleEditor
	}{bare{}, ruleBook{list: func() []RuleInfo { return rules }, edit: func(add bool, list, rule, where string) error {
		if rule == "Bash(" {
			return errors.New("rule Bash( does not parse")
		}
		edits = append(edits, strings.Join([]string{map[bool]string{true: "add", false: "remove"}[add], list, rule, where}, " "))
		return nil
	}}}
	h.typeText("/permissions")
	h.enter()
	p := h.printed()
	if !strings.Contains(p, "Deny rules:\n  Read(.env) (/p/.ply/settings.json)") || !strings.Contains(p, "Allow rules:\n  Bash(git status:*) (this session)") || strings.Contains(p, "Ask rules") {
		t.Fatalf("list:\n%s", p)
	}
	for _, typed := range []string{"/permissions allow Bash(npm test:*)", "/permissions allow Bash(go test:*) --project", "/permissions remove Bash(npm test:*)", "/permissions allow Bash("} {
		h.typeText(typed)
		h.enter()
	}
	want := []string{"add allow Bash(npm test:*) session", "add allow Bash(go test:*) project", "remove allow Bash(npm test:*) session"}
	if strings.Join(edits, "\n") != strings.Join(want, "\n") {
		t.Fatalf("edits %q, want %q", edits, want)
	}
	p = h.printed()
	for _, s := range []string{"added allow rule Bash(npm test:*) for this session", "saved to the project's settings", "removed Bash(npm test:*)", "✗ rule Bash( does not parse"} {
		if !strings.Contains(p, s) {
			t.Errorf("lacks %q:\n%s", s, p)
		}
	}
}

func TestMCPAndAgentsCommands(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.typeText("/mcp")
	h.enter()
	if !strings.Contains(h.printed(), "/mcp is not available") {
		t.Fatal(h.printed())
	}
	h.m.cfg.Session = struct {
		bare
		MCPLister
		AgentLister
	}{bare{}, mcpStatusFunc(func() []MCPInfo {
		return []MCPInfo{{Name: "github", Status: "connected", Tools: []string{"create_issue", "list_prs"}}, {Name: "db", Status: "failed: exit status 1"}}
	}), agentsFunc(func() []AgentInfo {
		return []AgentInfo{{Name: "explore", Description: "reads and searches", Source: "built in"}}
	})}
	h.typeText("/mcp")
	h.enter()
	h.typeText("/agents")
	h.enter()
	p := h.printed()
	for _, want := range []string{"github (connected)\n    2 tools: create_issue, list_prs", "db (failed: exit status 1)", "explore (built in)\n    reads and searches"} {
		if !strings.Contains(p, want) {
			t.Errorf("lacks %q:\n%s", want, p)
		}
	}
}

func TestInitCommand(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	h.m.cfg.Root = t.TempDir()
	h.send("/init")
	if got := rec.rounds()[0].parts[0].Text; !strings.HasPrefix(got, "Write an AGENTS.md file") {
		t.Fatalf("sent %q", got)
	}
	if err := os.WriteFile(filepath.Join(h.m.cfg.Root, "PLY.md"), []byte("# notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.send("/init")
	if got := rec.rounds()[1].parts[0].Text; !strings.HasPrefix(got, "This repository has PLY.md already") {
		t.Fatalf("sent %q", got)
	}
	if !strings.Contains(h.printed(), "> /init") {
		t.Fatal(h.printed())
	}
}
