package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/llm"
)

// Extra is what the commands of the cmd_*.go files reach in the core.
// Every callback is optional: a command whose callback is nil says it is
// not available.
type Extra struct {
	// Custom are the custom slash commands (internal/commands).
	Custom []customcmd.Command
	// RunShell runs a command as the user would in their shell: !cmd
	// typed at the prompt, or a custom command's !`cmd` once the user
	// said yes. output is what it printed, stdout and stderr together;
	// code is its exit status.
	RunShell func(ctx context.Context, command string) (output string, code int, err error)
	// History returns the conversation as the model has it (/export,
	// /copy).
	History func() []llm.Message
	// Diff lists what this session changed in the workspace (/diff).
	Diff func(ctx context.Context) ([]FileChange, error)
	// Context says what fills the model's window (/context).
	Context func() ContextUse
	// Rules lists the permission rules; EditRule adds (add true) or
	// removes one, for the session ("session") or saved to the project's
	// or the user's settings ("project", "user") (/permissions).
	Rules    func() []RuleInfo
	EditRule func(add bool, list, rule, where string) error
	// MCP lists the MCP servers (/mcp); Agents the subagents (/agents).
	MCP    func() []MCPInfo
	Agents func() []AgentInfo
	// Models lists the models /model offers, the current one included.
	Models func() []string
	// Theme is the theme at start ("dark", "light" or ""); SaveTheme
	// keeps a /theme choice in the user's settings.
	Theme     string
	SaveTheme func(name string) error
	// Now, when set, is the clock (/export's file name); tests fix it.
	Now func() time.Time

	// hooks: OnIdle is called once the UI has waited
	// IdleDelay (default DefaultIdleDelay) for the user's input after the
	// agent finished, once per idle period (the Notification hooks'
	// idle_prompt).
	OnIdle    func(ctx context.Context)
	IdleDelay time.Duration
	// UseCustom is told which custom command's prompt is sent next, just
	// before it is: its allowed-tools and model hold for that prompt.
	UseCustom func(c customcmd.Command)
}

// FileChange is one file /diff shows: how it changed, and its text
// before and after ("" for an added or removed side, or for content that
// was not kept).
type FileChange struct {
	Op        byte // '+', '-' or 'M'
	Path      string
	Old, New  string
	Binary    bool
	NoContent bool // the old content was not saved (over the size cap)
}

// ContextUse breaks the context window down by token estimates.
type ContextUse struct {
	Window                        int
	System, Tools, History, Total int
	// Reported is the prompt tokens the provider reported for the last
	// request (0 when none).
	Reported int
}

// RuleInfo is one permission rule and where it comes from.
type RuleInfo struct{ List, Rule, Source string }

// MCPInfo is one MCP server, its state and its tools.
type MCPInfo struct {
	Name, Status string
	Tools        []string
}

// AgentInfo is one subagent definition.
type AgentInfo struct{ Name, Description, Source string }

// cmdState is the state of the commands of the cmd_*.go files.
type cmdState struct {
	// shellContext holds the output of !cmd commands not sent yet: it
	// goes before the next prompt.
	shellContext []llm.Part
	// shellRunning: a !cmd or a custom command's shell commands run;
	// stopShell cancels them (Esc, Ctrl+C).
	shellRunning bool
	stopShell    context.CancelFunc
	// theme is the theme in use.
	theme string
}

// funcMsg carries work finished off the UI's goroutine back to it.
type funcMsg func(m *model) tea.Cmd

// startShell marks a shell command running and returns its context.
func (m *model) startShell() context.Context {
	ctx, cancel := context.WithCancel(m.base)
	m.cmds.shellRunning, m.cmds.stopShell = true, cancel
	return ctx
}

// endShell marks the shell command done.
func (m *model) endShell() {
	if m.cmds.stopShell != nil {
		m.cmds.stopShell()
	}
	m.cmds.shellRunning, m.cmds.stopShell = false, nil
}

// takeShellContext returns the outputs of !cmd commands waiting for the
// next prompt, and forgets them.
func (m *model) takeShellContext() []llm.Part {
	p := m.cmds.shellContext
	m.cmds.shellContext = nil
	return p
}
