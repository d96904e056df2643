package tui

import (
	"context"

	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// Session is the session the UI drives. Beyond its id, the UI probes it
// for the controls below, as net/http probes a ResponseWriter for
// http.Flusher: a command whose control the session lacks says it is not
// available.
type Session interface{ ID() string }

// ModeSwitcher changes the approval mode (Shift+Tab, /approval-mode);
// Mode is the mode now (a tool such as exit_plan_mode may change it) and
// Modes lists the modes in the order Shift+Tab cycles them.
type ModeSwitcher interface {
	Mode() string
	SetMode(name string) error
	Modes() []string
}

// Warmer opens the connection of the session's next request ahead of it,
// in the background; the UI calls it as a prompt is typed, and it must
// return at once. One opened ahead and not used is closed after a while.
type Warmer interface{ WarmProvider() }

// ModelSwitcher switches the model of later requests (/model).
type ModelSwitcher interface{ SetModel(name string) error }

// Compressor summarises the older history now (/compress), following
// focus when it is not empty.
type Compressor interface {
	Compress(ctx context.Context, focus string) (before, after int, ok bool)
}

func (m *model) modes() ModeSwitcher {
	s, _ := m.cfg.Session.(ModeSwitcher)
	return s
}

func (m *model) models() ModelSwitcher {
	s, _ := m.cfg.Session.(ModelSwitcher)
	return s
}

func (m *model) compressor() Compressor {
	s, _ := m.cfg.Session.(Compressor)
	return s
}

// What the commands reach beyond the controls above, each probed the
// same way. The values they return are the session's own reports
// (internal/info), aliased here under the names the commands use.
type (
	SessionInfo = info.Session
	ToolInfo    = info.Tool
	MemoryFile  = info.Memory
	SkillInfo   = info.Skill
	MCPPrompt   = info.MCPPrompt
	RuleInfo    = info.Rule
	MCPInfo     = info.MCPServer
	AgentInfo   = info.Agent
	ContextUse  = info.Context
	FileChange  = info.FileChange
	Changes     = info.Changes
)

// Clearer starts a new conversation in a new session (/clear); the one
// left stays saved and resumable.
type Clearer interface{ Clear() error }

// Expander rewrites a prompt before it is sent: the contents of its
// @path references are appended.
type Expander interface{ ExpandAtPaths(prompt string) string }

// ContextMeter says what fills the model's window: ContextUsed the
// tokens of the next request and the window, for the footer's
// percentage; ContextUse the breakdown (/context); ModelInfo the current
// model's window and prices, known false when the window is assumed.
type ContextMeter interface {
	ContextUsed() (used, window int)
	ContextUse() ContextUse
	ModelInfo() (info modelinfo.Info, known bool)
}

// AlwaysScoper says what answering "allow always" to a call would allow
// (no rules: nothing can be remembered for it, and the option is not
// offered), and saves such rules to the project's or the user's settings
// file (where "project" or "user"; SettingsFile is "" when there is none).
type AlwaysScoper interface {
	AlwaysScope(c *scheduler.Call) (rules []string, desc string)
	SettingsFile(where string) string
	SaveAllowRules(where string, rules []string) error
}

// RuleEditor lists the permission rules and adds (add true) or removes
// one, for the session ("session") or saved to the project's or the
// user's settings ("project", "user") (/permissions).
type RuleEditor interface {
	Rules() []RuleInfo
	EditRule(add bool, list, rule, where string) error
}

// SessionSwitcher lists the workspace's saved sessions, newest first, and
// switches to one, returning its history (/resume).
type SessionSwitcher interface {
	Sessions() ([]SessionInfo, error)
	Switch(id string) ([]llm.Message, error)
}

// Listers of what /tools, /memory, /tasks, /mcp, /agents and /model show.
type (
	ToolLister   interface{ Tools() []ToolInfo }
	MemoryLister interface{ Memory() []MemoryFile }
	// TaskLister lists the background work (shell jobs and any other
	// kind); /tasks can stop one.
	TaskLister  interface{ BackgroundTasks() []tools.Task }
	MCPLister   interface{ MCPStatus() []MCPInfo }
	AgentLister interface{ Agents() []AgentInfo }
	ModelLister interface{ Models() []info.Model }
)

// SkillRunner lists the skills (/skills) and activates one for the
// user's /name args, returning the prompt to send.
type SkillRunner interface {
	SkillList() []SkillInfo
	InvokeSkill(name, args string) (string, error)
}

// MCPPrompter offers the MCP servers' prompts as slash commands:
// MCPPrompts lists them, GetMCPPrompt renders one with the arguments
// typed after it. Both may take a round trip to the servers: the UI
// calls them off its own goroutine.
type MCPPrompter interface {
	MCPPrompts(ctx context.Context) []MCPPrompt
	GetMCPPrompt(ctx context.Context, command, args string) (string, error)
}

// Conversation is the conversation as the model has it (/export, /copy).
type Conversation interface{ Messages() []llm.Message }

// Differ lists what the session changed in the workspace (/diff).
type Differ interface {
	Diff(ctx context.Context) (Changes, error)
}

// ShellRunner runs a command as the user would in their shell: !cmd
// typed at the prompt, or a custom command's !`cmd` once the user said
// yes. output is what it printed, stdout and stderr together; code its
// exit status.
type ShellRunner interface {
	RunShell(ctx context.Context, command string) (output string, code int, err error)
}

// ThemeSaver keeps a /theme choice in the user's settings.
type ThemeSaver interface{ SaveTheme(name string) error }

// IdleNotifier is told once the UI has waited IdleDelay for the user's
// input after the agent finished, once per idle period (the Notification
// hooks' idle_prompt); HasIdle false: nothing listens, nothing is timed.
type IdleNotifier interface {
	HasIdle() bool
	Idle(ctx context.Context)
}

// CustomUser is told which custom command's prompt is sent next, just
// before it is: its allowed-tools and model hold for that prompt.
type CustomUser interface{ UseCustom(c customcmd.Command) }

// probe returns the session as T, and whether it is one.
func probe[T any](m *model) (T, bool) {
	s, ok := m.cfg.Session.(T)
	return s, ok
}
