package cli

import (
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/tui"
)

// The TUI probes its session for the interfaces its commands reach, and
// says a command is unavailable where the session lacks one: a method of
// core.Session whose signature drifts from the interface would switch
// its command off without a word. The session must satisfy each.
var (
	_ tui.AgentLister         = (*core.Session)(nil)
	_ tui.AlwaysScoper        = (*core.Session)(nil)
	_ tui.Clearer             = (*core.Session)(nil)
	_ tui.Configurer          = (*core.Session)(nil)
	_ tui.ContextMeter        = (*core.Session)(nil)
	_ tui.Conversation        = (*core.Session)(nil)
	_ tui.CustomUser          = (*core.Session)(nil)
	_ tui.Differ              = (*core.Session)(nil)
	_ tui.DirAdder            = (*core.Session)(nil)
	_ tui.EndpointModelLister = (*core.Session)(nil)
	_ tui.Expander            = (*core.Session)(nil)
	_ tui.HealthChecker       = (*core.Session)(nil)
	_ tui.IDEController       = (*core.Session)(nil)
	_ tui.IdleNotifier        = (*core.Session)(nil)
	_ tui.MCPLister           = (*core.Session)(nil)
	_ tui.MCPPrompter         = (*core.Session)(nil)
	_ tui.MemoryLister        = (*core.Session)(nil)
	_ tui.ModelLister         = (*core.Session)(nil)
	_ tui.Renamer             = (*core.Session)(nil)
	_ tui.RuleEditor          = (*core.Session)(nil)
	_ tui.SessionSwitcher     = (*core.Session)(nil)
	_ tui.ShellRunner         = (*core.Session)(nil)
	_ tui.SkillRunner         = (*core.Session)(nil)
	_ tui.TaskLister          = (*core.Session)(nil)
	_ tui.ThemeSaver          = (*core.Session)(nil)
	_ tui.ToolLister          = (*core.Session)(nil)
	_ tui.Warmer              = (*core.Session)(nil)
)
