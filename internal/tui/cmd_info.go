package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
)

func init() {
	registerCommand(slashCommand{name: "/context", help: "what fills the model's context window: system prompt, tools, conversation", run: (*model).contextCommand})
	registerCommand(slashCommand{name: "/permissions", help: "[allow RULE [--project|--user] | remove RULE]  list the rules, or add/remove one", run: (*model).permissionsCommand})
	registerCommand(slashCommand{name: "/mcp", help: "the MCP servers, their state and their tools", run: (*model).mcpCommand})
	registerCommand(slashCommand{name: "/agents", help: "the subagents the model may start, and where each is defined", run: (*model).agentsCommand})
	registerCommand(slashCommand{name: "/init", help: "have the model write (or improve) an AGENTS.md for this repository", idle: true, run: (*model).initCommand})
}

// kTokens writes a token count as 950, 12.3k or 128k.
func kTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}

func (m *model) contextCommand(string) tea.Cmd {
	s, ok := probe[ContextMeter](m)
	if !ok {
		return m.unavailable("/context")
	}
	u := s.ContextUse()
	pct := func(n int) string {
		if u.Window <= 0 {
			return ""
		}
		return fmt.Sprintf("%5.1f%%", float64(n)*100/float64(u.Window))
	}
	var b strings.Builder
	if u.Window > 0 {
		fmt.Fprintf(&b, "Context window of %s: %s tokens\n", m.cfg.Model, kTokens(u.Window))
	} else {
		fmt.Fprintf(&b, "Context window of %s: size unknown\n", m.cfg.Model)
	}
	for _, r := range []struct {
		name string
		n    int
	}{{"system prompt", u.System}, {"tools", u.Tools}, {"conversation", u.History}, {"total", u.Total}} {
		fmt.Fprintf(&b, "  %-14s %7s  %s\n", r.name, kTokens(r.n), pct(r.n))
	}
	if u.Window > 0 {
		fmt.Fprintf(&b, "  %-14s %7s  %s\n", "free", kTokens(max(u.Window-u.Total, 0)), pct(max(u.Window-u.Total, 0)))
	}
	b.WriteString(m.st.dim.Render("  (estimates at about four characters a token)"))
	if u.Reported > 0 {
		b.WriteString("\n" + m.st.dim.Render(fmt.Sprintf("  the provider counted %s prompt tokens in the last request", kTokens(u.Reported))))
	}
	return m.commit(b.String())
}

func (m *model) permissionsCommand(arg string) tea.Cmd {
	s, ok := probe[RuleEditor](m)
	if !ok {
		return m.unavailable("/permissions")
	}
	if arg != "" {
		return m.editRule(s, arg)
	}
	rules := s.Rules()
	var b strings.Builder
	fmt.Fprintf(&b, "Approval mode: %s\n", m.mode())
	for _, list := range []string{"deny", "ask", "allow"} {
		n := 0
		for _, r := range rules {
			if r.List != list {
				continue
			}
			if n == 0 {
				fmt.Fprintf(&b, "%s rules:\n", strings.ToUpper(list[:1])+list[1:])
			}
			n++
			fmt.Fprintf(&b, "  %s %s\n", sanitize(r.Rule), m.st.dim.Render("("+sanitize(r.Source)+")"))
		}
	}
	if len(rules) == 0 {
		b.WriteString("No permission rules: the approval mode decides every call.\n")
	}
	b.WriteString(m.st.dim.Render("/permissions allow RULE adds a rule for this session (--project or --user also saves it); /permissions remove RULE removes a session rule"))
	return m.commit(b.String())
}

func (m *model) editRule(s RuleEditor, arg string) tea.Cmd {
	verb, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	where := "session"
	for _, w := range []string{"project", "user"} {
		if r, ok := strings.CutSuffix(rest, " --"+w); ok {
			rest, where = strings.TrimSpace(r), w
		}
	}
	var err error
	switch verb {
	case "allow", "ask", "deny":
		if rest == "" {
			return m.commit(m.st.err.Render("✗ /permissions " + verb + " needs a rule, such as Bash(npm test:*)"))
		}
		err = s.EditRule(true, verb, rest, where)
	case "remove":
		err = s.EditRule(false, "allow", rest, "session")
	default:
		return m.commit(m.st.err.Render("✗ /permissions: say allow RULE, or remove RULE"))
	}
	if err != nil {
		return m.commit(m.st.err.Render("✗ " + err.Error()))
	}
	msg := map[bool]string{true: "added " + verb + " rule " + rest, false: "removed " + rest}[verb != "remove"]
	if where != "session" {
		msg += ", saved to the " + where + "'s settings"
	} else if verb != "remove" {
		msg += " for this session"
	}
	return m.commit(m.st.dim.Render(msg))
}

func (m *model) mcpCommand(string) tea.Cmd {
	s, ok := probe[MCPLister](m)
	if !ok {
		if prompts := m.mcpPromptsList(); prompts != nil {
			return prompts
		}
		return m.unavailable("/mcp")
	}
	servers := s.MCPStatus()
	if len(servers) == 0 {
		return m.commit(m.st.dim.Render("no MCP servers are configured (mcpServers in settings.json)"))
	}
	// The servers' prompts (cmd_mcp.go) follow, asked off the UI goroutine.
	return tea.Sequence(m.mcpServersList(servers), m.mcpPromptsList())
}

func (m *model) mcpServersList(servers []MCPInfo) tea.Cmd {
	var b strings.Builder
	b.WriteString("MCP servers:")
	for _, s := range servers {
		fmt.Fprintf(&b, "\n  %s %s", m.st.bold.Render(sanitize(s.Name)), m.st.dim.Render("("+sanitize(s.Status)+")"))
		if len(s.Tools) > 0 {
			fmt.Fprintf(&b, "\n    %d tools: %s", len(s.Tools), abbreviate(sanitize(strings.Join(s.Tools, ", ")), max(m.width-14, 20)))
		}
	}
	return m.commit(b.String())
}

func (m *model) agentsCommand(string) tea.Cmd {
	s, ok := probe[AgentLister](m)
	if !ok {
		return m.unavailable("/agents")
	}
	agents := s.Agents()
	if len(agents) == 0 {
		return m.commit(m.st.dim.Render("no subagents are offered in this session"))
	}
	var b strings.Builder
	b.WriteString("Subagents (the agent tool starts them; define more in .ply/agents/*.md or ~/.ply/agents/*.md):")
	for _, a := range agents {
		fmt.Fprintf(&b, "\n  %s %s\n    %s", m.st.bold.Render(sanitize(a.Name)), m.st.dim.Render("("+sanitize(a.Source)+")"),
			abbreviate(sanitize(a.Description), max(m.width-6, 20)))
	}
	return m.commit(b.String())
}

// initPrompt asks the model to write the repository's instruction file.
const initPrompt = `Write an AGENTS.md file at the root of this repository: the instructions a coding agent (or a new contributor) needs before changing anything here.

First look around: list the top-level files and folders, read the README and any build files (Makefile, go.mod, package.json, pyproject.toml, Cargo.toml, …), CI configuration, and a few central source files. Then write, briefly and concretely:
- what the project is, and its layout (which folder holds what);
- how to build, run the tests (also one test), lint and format — the exact commands;
- the code style and conventions that are not obvious from a linter;
- anything surprising: generated files, required environment, things never to do.
Keep it short (well under 200 lines); prefer commands and paths to prose; do not invent what you did not see.`

func (m *model) initCommand(string) tea.Cmd {
	prompt := initPrompt
	for _, name := range []string{"AGENTS.md", "PLY.md"} {
		if m.cfg.Root == "" {
			break
		}
		if _, err := os.Stat(filepath.Join(m.cfg.Root, name)); err == nil {
			prompt = fmt.Sprintf("This repository has %s already. Read it, check it against the repository as it is now, and improve it in place: fix what is out of date, add what is missing, cut what does not help. What it should hold:\n\n%s", name, initPrompt)
			break
		}
	}
	return m.submitShown("/init", prompt)
}
