// Package info holds the plain values a session reports about itself —
// its saved sessions, tools, rules, MCP servers, subagents, skills,
// models, what fills its context, what it changed — so that the session
// core produces them and every entry layer (the TUI, ACP, the SDK) shows
// them without importing the core or each other. It holds data only: no
// behaviour, no imports beyond the standard library.
package info

import "time"

// Session is one saved session of the workspace, as a picker lists it.
type Session struct {
	ID string
	// Title is the name the user gave it (/rename), "" for none.
	Title       string
	Modified    time.Time
	Turns       int
	FirstPrompt string
	// Current is the session in use.
	Current bool
}

// Tool is one tool the model is offered.
type Tool struct{ Name, Description string }

// Memory is one instruction file loaded into the system prompt.
type Memory struct {
	Path  string
	Bytes int
}

// Skill is one skill: Path is its SKILL.md, Source "user" or "project".
type Skill struct {
	Name, Description string
	Path, Source      string
}

// MCPPrompt is one MCP server prompt offered as a slash command.
type MCPPrompt struct {
	Command     string
	Description string
	// Args names its arguments, in order.
	Args []string
}

// Rule is one permission rule in force: its list ("deny", "ask",
// "allow"), its text and where it comes from.
type Rule struct{ List, Rule, Source string }

// MCPServer is one MCP server, its state and its tools (without the
// mcp__server__ prefix).
type MCPServer struct {
	Name, Status string
	Tools        []string
}

// Agent is one subagent definition; Source is its file or "built in".
type Agent struct{ Name, Description, Source string }

// Model is one model the session could switch to.
type Model struct {
	ID    string
	Label string
	// Provider is the settings' modelProviders entry serving it ("" for
	// the session's own).
	Provider      string
	ContextWindow int // 0: unknown
	Current       bool
}

// Context breaks the next request down by token estimates.
type Context struct {
	Model                         string
	Window                        int // 0: unknown
	System, Tools, History, Total int
	// Reported is the prompt tokens the provider reported for the last
	// request (0 before the first reply).
	Reported int
}

// Changes is what the session changed in the workspace.
type Changes struct {
	Files []FileChange
	// Partial is set when the session's first checkpoint was never
	// stored whole (ply stopped while taking it): only the files saved
	// before the first batch that changed them are compared.
	Partial bool
}

// FileChange is one file the session changed: how, and its text before
// and after ("" for an added or removed side, or for content that was
// not kept).
type FileChange struct {
	Op        byte // '+', '-' or 'M'
	Path      string
	Old, New  string
	Binary    bool
	NoContent bool // the old content was not saved (over the size cap)
}

// Check is one finding of /doctor: what was checked, how it stands,
// what was found and, when it is not OK, what to do about it.
type Check struct {
	Name   string
	Status CheckStatus
	Detail string
	Fix    string
}

// CheckStatus is how a Check stands.
type CheckStatus int

const (
	CheckOK CheckStatus = iota
	CheckWarn
	CheckFail
)

// Setting is one setting /config shows: its dotted name, the kind of
// value it takes, its value as JSON ("" when no file sets it), the file
// that sets it, and whether only the user's own file may.
type Setting struct {
	Name, Kind, Value, From string
	UserOnly                bool
}

// IDE is the connection to the editor ply runs in, through its companion
// extension (/ide, the footer).
type IDE struct {
	// Available: this entry connects to editors at all.
	Available bool
	// Connected, or Connecting; otherwise Detail says why not.
	Connected, Connecting bool
	// Name is the editor's ("VS Code"), when known.
	Name   string
	Detail string
	// Diffing: approvals of file changes open in the editor's diff view.
	Diffing bool
	// ActiveFile and Cursor ("line 3, character 1") are the file with the
	// focus in the editor; OpenFiles counts the open files it reported.
	ActiveFile, Cursor string
	OpenFiles          int
	// Found: the editor's companion was found (a refusal or failure is
	// then worth saying); Notices are the discovery files passed over.
	Found   bool
	Notices []string
}
