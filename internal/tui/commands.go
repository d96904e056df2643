package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/spell"
)

// slashCommand is one command typed at the prompt: its name with the
// slash, the help line, and what it does. run gets the argument text
// after the name, trimmed.
type slashCommand struct {
	name, help string
	// idle: the command changes the conversation, so it waits for an
	// idle agent.
	idle bool
	run  func(m *model, arg string) tea.Cmd
}

// commands lists the slash commands in help order. Commands that live in
// other files add themselves with registerCommand from an init function.
var commands = []slashCommand{
	{name: "/help", help: "this help"}, // run set in init: helpText reads this table
	{name: "/clear", help: "start a new conversation", idle: true, run: (*model).clearCommand},
	{name: "/compress", help: "[focus]  summarise the older conversation now, to free context (focus: what the summary should keep)", idle: true, run: (*model).compressCommand},
	{name: "/stats", help: "token usage, rounds, tool calls and time of this session", run: func(m *model, _ string) tea.Cmd { return m.commit(m.statsText()) }},
	{name: "/model", help: "[name|N]  list the models, or switch to one", run: (*model).modelCommand},
	{name: "/approval-mode", help: "[mode]  show the approval mode, or set it (Shift+Tab cycles plan, default, auto-edit and auto; yolo only here)", run: (*model).approvalCommand},
	{name: "/resume", help: "pick a saved session of this workspace to go on with", idle: true, run: (*model).resumeCommand},
	{name: "/rewind", help: "put the files and/or the conversation back to before a prompt", idle: true, run: func(m *model, _ string) tea.Cmd { return m.openRewind() }},
	{name: "/tools", help: "list the tools the model may call", run: (*model).toolsCommand},
	{name: "/memory", help: "list the instruction files loaded into the system prompt", run: (*model).memoryCommand},
	{name: "/quit", help: "leave ply", run: func(*model, string) tea.Cmd { return tea.Quit }},
}

func init() {
	commands[0].run = func(m *model, _ string) tea.Cmd { return m.commit(m.helpText()) } // cmd_help.go
}

// registerCommand adds a command kept in another file. Help lists it
// before /quit.
func registerCommand(c slashCommand) {
	last := len(commands) - 1
	commands = append(commands[:last], c, commands[last])
}

func lookupCommand(name string) *slashCommand {
	if name == "/exit" {
		name = "/quit"
	}
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func (m *model) commandsWithPrefix(p string) []string {
	var out []string
	for _, c := range commands {
		if strings.HasPrefix(c.name, p) {
			out = append(out, c.name)
		}
	}
	out = append(out, m.customWithPrefix(p)...) // cmd_custom.go
	if p == "/e" || p == "/ex" || p == "/exi" || p == "/exit" {
		out = append(out, "/exit")
	}
	return out
}

// compressedMsg reports the end of a /compress.
type compressedMsg struct {
	before, after int
	ok            bool
	cancelled     bool
}

// command runs a slash command. The ones that change the conversation
// wait for an idle agent; the others work at any time.
func (m *model) command(text string) tea.Cmd {
	name, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	if c := lookupCommand(name); c != nil {
		if c.idle && (m.busy || m.compacting) {
			return m.notIdle(name)
		}
		echo := m.echoCommand(name, text) // cmd_echo.go
		return tea.Batch(echo, c.run(m, arg))
	}
	if c := m.skillCommand(name, arg); c != nil {
		return c
	}
	if c := m.mcpPromptCommand(name); c != nil { // MCP prompts, cmd_mcp.go
		if m.busy || m.compacting {
			return m.notIdle(name)
		}
		return c.run(m, arg)
	}
	if c := m.lookupCustom(name); c != nil {
		return m.runCustom(c, arg) // cmd_custom.go
	}
	msg := "unknown command " + name
	if c := m.suggestCommands(name); len(c) > 0 {
		msg += " (did you mean " + strings.Join(c, ", ") + "?)"
	} else {
		msg += " (try /help)"
	}
	return m.commit(m.st.err.Render(msg))
}

// peerCommands are other agents' names for what a ply command does, for
// the hint after an unknown command.
var peerCommands = map[string]string{
	"/usage": "/stats", "/status": "/stats",
	"/new": "/clear", "/reset": "/clear", "/compact": "/compress", "/summarize": "/compress",
	"/continue": "/resume", "/sessions": "/resume", "/checkpoint": "/rewind", "/undo": "/rewind", "/restore": "/rewind",
	"/allowed-tools": "/permissions", "/tasks-list": "/tasks", "/bashes": "/tasks",
	"/directory": "/add-dir", "/dir": "/add-dir", "/settings": "/config", "/about": "/doctor",
}

// suggestCommands names the commands name may have meant: another
// agent's name for one, those it begins, and those a typo away.
func (m *model) suggestCommands(name string) []string {
	if c, ok := peerCommands[strings.ToLower(name)]; ok {
		return []string{c}
	}
	if c := m.commandsWithPrefix(name); len(c) > 0 {
		return c
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return spell.Closest(name, names, 3, strings.ToLower, func(cand string, d int) bool { return d <= max(2, len(cand)/4) })
}

func (m *model) clearCommand(string) tea.Cmd {
	note := "(new conversation)"
	if s, ok := probe[Clearer](m); ok {
		left := m.cfg.Session.ID()
		if err := s.Clear(); err != nil {
			return m.commit(m.st.err.Render("✗ /clear: " + err.Error() + " (the conversation goes on)"))
		}
		note = "(new conversation; the last one is saved: /resume, or ply -r " + left + ")"
	}
	// The token and cost totals are the run's: they survive /clear.
	m.todos, m.lastThought, m.retryable, m.lastCards = nil, "", false, nil
	m.refreshContext()
	return m.clearThen(m.st.dim.Render(note))
}

func (m *model) compressCommand(arg string) tea.Cmd {
	c := m.compressor()
	if c == nil {
		return m.unavailable("/compress")
	}
	m.compacting = true
	focus := strings.TrimSpace(arg)
	ctx, cancel := context.WithCancel(m.base)
	m.stopCompress = cancel
	// The live area says it runs (View); the result is printed alone.
	return tea.Batch(m.tick(), func() tea.Msg {
		defer cancel()
		b, a, ok := c.Compress(ctx, focus)
		return compressedMsg{before: b, after: a, ok: ok, cancelled: ctx.Err() != nil}
	})
}

func (m *model) modelCommand(arg string) tea.Cmd { return m.pickModel(arg) } // cmd_model.go

func (m *model) approvalCommand(arg string) tea.Cmd {
	if arg == "" {
		var modes []string
		if ms := m.modes(); ms != nil {
			modes = ms.Modes()
		}
		return m.commit(fmt.Sprintf("approval mode: %s (modes: %s)", m.mode(), strings.Join(modes, ", ")))
	}
	return m.setMode(arg)
}

func (m *model) resumeCommand(string) tea.Cmd {
	s, ok := probe[SessionSwitcher](m)
	if !ok {
		return m.unavailable("/resume")
	}
	list, err := s.Sessions()
	if err != nil {
		return m.commit(m.st.err.Render("✗ listing sessions: " + err.Error()))
	}
	if len(list) == 0 {
		return m.commit(m.st.dim.Render("no saved sessions for this workspace"))
	}
	m.picker = &picker{items: list}
	return nil
}

func (m *model) toolsCommand(string) tea.Cmd {
	s, ok := probe[ToolLister](m)
	if !ok {
		return m.unavailable("/tools")
	}
	var b strings.Builder
	b.WriteString("Tools:")
	for _, t := range s.Tools() {
		first, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		fmt.Fprintf(&b, "\n  %s  %s", m.st.bold.Render(t.Name), m.st.dim.Render(abbreviate(first, max(m.width-len(t.Name)-6, 10))))
	}
	return m.commit(b.String())
}

func (m *model) memoryCommand(string) tea.Cmd {
	s, ok := probe[MemoryLister](m)
	if !ok {
		return m.unavailable("/memory")
	}
	files := s.Memory()
	if len(files) == 0 {
		return m.commit(m.st.dim.Render("no instruction files (PLY.md, AGENTS.md, …) are loaded"))
	}
	var b strings.Builder
	b.WriteString("Instruction files, in the order they are loaded:")
	for _, f := range files {
		fmt.Fprintf(&b, "\n  %s %s", f.Path, m.st.dim.Render(fmt.Sprintf("(%d bytes)", f.Bytes)))
	}
	return m.commit(b.String())
}

func (m *model) notIdle(name string) tea.Cmd {
	return m.commit(m.st.warn.Render(name + " waits for the agent: let it finish or press Esc"))
}

func (m *model) unavailable(name string) tea.Cmd {
	return m.commit(m.st.err.Render(name + " is not available in this session"))
}

func (m *model) compressed(c compressedMsg) tea.Cmd {
	m.compacting, m.stopCompress, m.cancelling = false, nil, false
	m.refreshContext()
	var cmd tea.Cmd
	switch {
	case c.cancelled && !c.ok:
		cmd = m.commit(m.st.dim.Render("⏹ compression stopped; the conversation is as it was"))
	case c.ok:
		m.stats.compressions++
		cmd = m.commit(m.st.dim.Render(formatCompressed(c.before, c.after)))
	default:
		cmd = m.commit(m.st.dim.Render("nothing to compress"))
	}
	return tea.Batch(cmd, m.sendQueued(false))
}

// mode is the approval mode now: a tool (exit_plan_mode) may change it.
func (m *model) mode() string {
	if ms := m.modes(); ms != nil {
		return ms.Mode()
	}
	return m.cfg.PermissionMode
}

func (m *model) setMode(name string) tea.Cmd {
	ms := m.modes()
	if ms == nil {
		return m.unavailable("/approval-mode")
	}
	if err := ms.SetMode(name); err != nil {
		return m.commit(m.st.err.Render("✗ " + err.Error()))
	}
	m.cfg.PermissionMode = ms.Mode()
	return nil
}

// cycleMode moves to the next approval mode (Shift+Tab), never to yolo:
// approving everything takes a flag, a setting or /approval-mode, not a
// key pressed once too often. From yolo it goes on to the next safe mode.
func (m *model) cycleMode() tea.Cmd {
	ms := m.modes()
	if ms == nil || len(ms.Modes()) == 0 {
		return nil
	}
	modes := ms.Modes()
	i := slices.Index(modes, m.mode())
	for range modes {
		i = (i + 1) % len(modes)
		if next := modes[i]; next != "yolo" {
			return m.setMode(next)
		}
	}
	return nil
}

func (m *model) statsText() string {
	s := m.stats
	u := s.usage
	lines := []string{
		"Session stats:",
		fmt.Sprintf("  time        %s", time.Since(s.start).Round(time.Second)),
		fmt.Sprintf("  prompts     %d, model rounds %d, compressions %d", s.prompts, s.rounds, s.compressions),
		fmt.Sprintf("  tool calls  %d (%d failed or denied)", s.toolCalls, s.toolFailed),
		fmt.Sprintf("  tokens      %d in (%d cached), %d out (%d reasoning)", u.InputTokens, u.CachedTokens, u.OutputTokens, u.ReasoningTokens),
	}
	if s.priced {
		lines = append(lines, "  cost        ~"+money(s.cost)+" (at the model's list prices; settings modelProviders.*.pricing)")
	}
	if m.ctx.window > 0 {
		lines = append(lines, "  context     "+contextText(m.ctx))
	}
	return strings.Join(lines, "\n")
}

// picker is the /resume session list.
type picker struct {
	items []SessionInfo
	// filter is what the user typed to narrow items; sel indexes the
	// filtered list.
	filter string
	sel    int
	rewind *rewindPicker // /rewind's picker instead (rewind.go)
	// confirm asks whether to run a custom command's shell commands
	// instead (cmd_custom.go).
	confirm *confirmBox
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	if p.rewind != nil {
		return m.rewindKey(k)
	}
	if p.confirm != nil {
		return m.confirmKey(k) // cmd_custom.go
	}
	switch k.String() {
	case "up":
		p.sel = max(p.sel-1, 0)
	case "down":
		p.sel = min(p.sel+1, len(p.filtered())-1)
	case "enter":
		items := p.filtered()
		if len(items) == 0 {
			return nil
		}
		m.picker = nil
		return m.resume(items[p.sel])
	case "backspace":
		if p.filter != "" {
			_, n := utf8.DecodeLastRuneInString(p.filter)
			p.filter, p.sel = p.filter[:len(p.filter)-n], 0
		}
	default:
		if k.Text != "" {
			p.filter, p.sel = p.filter+k.Text, 0
		}
	}
	return nil
}

func (m *model) resume(s SessionInfo) tea.Cmd {
	if s.Current {
		return m.commit(m.st.dim.Render("that is the session you are in"))
	}
	sw, ok := probe[SessionSwitcher](m)
	if !ok {
		return m.unavailable("/resume")
	}
	h, err := sw.Switch(s.ID)
	if err != nil {
		return m.commit(m.st.err.Render("✗ resuming " + s.ID + ": " + err.Error()))
	}
	m.todos, m.lastThought, m.retryable, m.lastCards = nil, "", false, nil
	m.refreshContext()
	m.askSchedules() // schedresume.go
	return m.clearThen(m.st.dim.Render("resumed session "+s.ID), m.renderHistory(h))
}

func (m *model) renderPicker() string {
	p := m.picker
	if p.rewind != nil {
		return m.renderRewind()
	}
	if p.confirm != nil {
		return m.renderConfirm()
	}
	items := p.filtered()
	room := max(m.height-7, 3)
	first := max(0, min(p.sel-room/2, len(items)-room))
	var b strings.Builder
	b.WriteString(ansi.Truncate(m.st.warn.Render("Resume a session")+m.st.dim.Render("  type to search · ↑/↓ choose · Enter resume · Esc close"), m.width-1, "…"))
	if p.filter != "" {
		b.WriteString("\n" + m.st.dim.Render("search: ") + sanitize(p.filter) + m.st.dim.Render(fmt.Sprintf("  (%d of %d)", len(items), len(p.items))))
	}
	for i := first; i < min(first+room, len(items)); i++ {
		s := items[i]
		cur := ""
		if s.Current {
			cur = " (this one)"
		}
		what := sanitize(s.FirstPrompt)
		if s.Title != "" {
			what = m.st.bold.Render(sanitize(s.Title)) + "  " + what
		}
		line := fmt.Sprintf("%s  %9s  %s%s", s.Modified.Local().Format("01-02 15:04"), plural(s.Turns, "turn"), what, cur)
		line = abbreviate(line, max(m.width-4, 10))
		if i == p.sel {
			b.WriteString("\n" + m.st.user.Render("› ") + m.st.bold.Render(line))
		} else {
			b.WriteString("\n  " + line)
		}
	}
	return b.String()
}

// renderHistory draws a loaded conversation: prompts, replies rendered as
// markdown, and one line per tool call.
func (m *model) renderHistory(h []llm.Message) string {
	var blocks []string
	for i := range h {
		msg := &h[i]
		if msg.Role == llm.RoleUser {
			if t := strings.TrimSpace(typedText(msg)); t != "" {
				blocks = append(blocks, m.renderUser(abbreviate(t, 2000)))
			}
			continue
		}
		if t := msg.Text(); strings.TrimSpace(t) != "" {
			blocks = append(blocks, m.md.render(t, m.width))
		}
		for _, p := range msg.Parts {
			if p.Call != nil {
				blocks = append(blocks, m.st.dim.Render("⏺ "+p.Call.Name+" "+
					abbreviate(sanitize(callSubject(p.Call.Name, p.Call.Args)), max(m.width-len(p.Call.Name)-4, 10))))
			}
		}
	}
	return strings.Join(blocks, "\n")
}
