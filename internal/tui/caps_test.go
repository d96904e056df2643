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

// A test gives the UI exactly the session capabilities it names: a struct
// embedding an id (bare, or a *session with its controls) and the
// adapters below, as in
//
//	h.m.cfg.Session = struct{ bare; ShellRunner }{bare{}, shellFunc(run)}
//
// so that a command whose capability is not named is unavailable.

type bare struct{}

func (bare) ID() string { return "test-session" }

type shellFunc func(ctx context.Context, command string) (string, int, error)

func (f shellFunc) RunShell(ctx context.Context, c string) (string, int, error) { return f(ctx, c) }

type customFunc func(customcmd.Command)

func (f customFunc) UseCustom(c customcmd.Command) { f(c) }

type messagesFunc func() []llm.Message

func (f messagesFunc) Messages() []llm.Message { return f() }

type diffFunc func(context.Context) (Changes, error)

func (f diffFunc) Diff(ctx context.Context) (Changes, error) { return f(ctx) }

type mcpStatusFunc func() []MCPInfo

func (f mcpStatusFunc) MCPStatus() []MCPInfo { return f() }

type agentsFunc func() []AgentInfo

func (f agentsFunc) Agents() []AgentInfo { return f() }

type modelsFunc func() []info.Model

func (f modelsFunc) Models() []info.Model { return f() }

type tasksFunc func() []tools.Task

func (f tasksFunc) BackgroundTasks() []tools.Task { return f() }

type themeFunc func(string) error

func (f themeFunc) SaveTheme(name string) error { return f(name) }

type clearFunc func() error

func (f clearFunc) Clear() error { return f() }

// idleFunc listens for idle_prompt.
type idleFunc func(context.Context)

func (f idleFunc) HasIdle() bool            { return true }
func (f idleFunc) Idle(ctx context.Context) { f(ctx) }

// meter reports a context use; unset parts report zeros.
type meter struct {
	used func() (int, int)
	use  func() ContextUse
	info func() (modelinfo.Info, bool)
}

func (m meter) ContextUsed() (int, int) {
	if m.used == nil {
		return 0, 0
	}
	return m.used()
}

func (m meter) ContextUse() ContextUse {
	if m.use == nil {
		return ContextUse{}
	}
	return m.use()
}

func (m meter) ModelInfo() (modelinfo.Info, bool) {
	if m.info == nil {
		return modelinfo.Info{}, false
	}
	return m.info()
}

// ruleBook lists and edits rules as the test says.
type ruleBook struct {
	list func() []RuleInfo
	edit func(add bool, list, rule, where string) error
}

func (r ruleBook) Rules() []RuleInfo { return r.list() }
func (r ruleBook) EditRule(add bool, list, rule, where string) error {
	return r.edit(add, list, rule, where)
}

// scoper has the settings files files names and saves through save, with
// the file's path; it scopes nothing itself (the tests open the dialog
// with a scope).
type scoper struct {
	files map[string]string
	save  func(path string, rules []string) error
}

func (s scoper) AlwaysScope(*scheduler.Call) ([]string, string) { return nil, "" }
func (s scoper) SettingsFile(where string) string               { return s.files[where] }
func (s scoper) SaveAllowRules(where string, rules []string) error {
	return s.save(s.files[where], rules)
}

// prompter offers MCP prompts as the test says.
type prompter struct {
	list func() []MCPPrompt
	get  func(ctx context.Context, command, args string) (string, error)
}

func (p prompter) MCPPrompts(context.Context) []MCPPrompt { return p.list() }
func (p prompter) GetMCPPrompt(ctx context.Context, command, args string) (string, error) {
	return p.get(ctx, command, args)
}

// skillSet lists and invokes skills as the test says.
type skillSet struct {
	list   func() []SkillInfo
	invoke func(name, args string) (string, error)
}

func (s skillSet) SkillList() []SkillInfo                        { return s.list() }
func (s skillSet) InvokeSkill(name, args string) (string, error) { return s.invoke(name, args) }

type addDirFunc func(string) (string, []string, error)

func (f addDirFunc) AddDir(dir string) (string, []string, error) { return f(dir) }

type doctorFunc func(context.Context) []info.Check

func (f doctorFunc) Doctor(ctx context.Context) []info.Check { return f(ctx) }

// configurer keeps settings in a map, as /config's session would in a
// file.
type configurer struct {
	set   map[string]string
	where []string
}

func (c *configurer) ConfigSettings() []info.Setting {
	var out []info.Setting
	for _, n := range []string{"approvalMode", "ui.theme", "tools.shellOutputLimit"} {
		s := info.Setting{Name: n, Kind: "text"}
		if v, ok := c.set[n]; ok {
			s.Value, s.From = v, "/home/u/.ply/settings.json"
		}
		out = append(out, s)
	}
	return out
}

func (c *configurer) SetSetting(name, text, where string) (string, error) {
	c.where = append(c.where, where)
	c.set[name] = `"` + text + `"`
	return "it takes effect when ply next starts", nil
}

func (c *configurer) UnsetSetting(name, where string) (bool, error) {
	_, ok := c.set[name]
	delete(c.set, name)
	return ok, nil
}
