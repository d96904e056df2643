package core

import (
	"context"
	"encoding/json"
	"io"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/telemetry"
)

// Config is what a session is built from: values already resolved from
// flags, settings files and the environment.
type Config struct {
	// Workspace is the folder the session works in; IncludeDirs are
	// further workspace roots. Home is ply's home ("" for none).
	Workspace   string
	IncludeDirs []string
	Home        string
	// Worktree is the git worktree Workspace is (ply --worktree), which
	// a new session's transcript records; nil for none.
	Worktree *session.Worktree
	// Version is ply's, for the MCP servers.
	Version string

	// NewProvider makes the provider client, once, as the session is
	// built. Model is the session's model; ProviderName the settings'
	// modelProviders entry in use ("" for none). ContextWindow and
	// MaxOutputTokens come from that entry (0: not set).
	NewProvider     func() chat.Provider
	Model           string
	ProviderName    string
	ContextWindow   int
	MaxOutputTokens int
	Effort          llm.Effort
	// OtherModels are the models the settings' modelProviders give only
	// to providers other than the session's, each with its provider's
	// name: SetModel refuses them (this session cannot reach them).
	OtherModels map[string]string
	// Endpoint is where requests go and where the key came from, for
	// /doctor; it never holds the key.
	Endpoint Endpoint
	// Models are the other models the session's provider serves (the
	// settings' modelProviders with its wire format, endpoint and key),
	// as Models lists them.
	Models []info.Model

	// Telemetry exports the session's loops (nil: telemetry is off).
	Telemetry *telemetry.Provider

	// Mode is the approval mode the session starts in.
	Mode string
	// Settings are the merged settings files, SettingsFiles each file
	// read; User is the user's own file, the only source of webFetch,
	// web search and allowUnsandboxed.
	Settings      settings.Settings
	SettingsFiles []settings.File
	User          settings.Settings
	// Trusted says whether the workspace's own configuration is loaded:
	// its agents and skills; without it, the snapshot's git runs confined.
	Trusted bool
	// ChildEnv is the environment of shell commands, hooks and MCP
	// servers; MCP the servers to start.
	ChildEnv []string
	MCP      map[string]mcp.ServerConfig

	// System prompt and tools: SystemPrompt replaces the built-in
	// prompt, AppendSystemPrompt is added to it; AllowedTools,
	// ExcludeTools and CoreTools are the flags' tool lists.
	SystemPrompt       string
	AppendSystemPrompt string
	AllowedTools       []string
	ExcludeTools       []string
	CoreTools          []string
	// Sandbox confines shell commands; AllowUnsandboxed accepts running
	// them unconfined where the kernel cannot.
	Sandbox          Sandbox
	AllowUnsandboxed bool

	// Prompt is the first prompt ("" for none yet). The session opened
	// is new (with SessionID, or a fresh id), the latest (Continue) or
	// the one Resume names; Fork copies it under a new id.
	Prompt    string
	SessionID string
	Continue  bool
	Resume    string
	Fork      bool
	// Schema is the structured output's JSON schema; nil for none.
	Schema json.RawMessage
	// Interactive: a person answers (the UI or an ACP client).
	// StreamInput: prompts come as SDK messages. PromptLater: a resumed
	// session's next prompt comes later, so it need not be given now.
	Interactive bool
	StreamInput bool
	PromptLater bool
	// Editor says how the user reaches ply from an editor
	// (sysprompt.EditorACP), for the system prompt; "" when not.
	Editor string

	// MCPInBackground: New does not wait for the MCP servers; their
	// tools join as each connects (the interactive UI).
	MCPInBackground bool

	// Getenv reads the process environment (retry scale, TMPDIR, the web
	// search key); Stderr takes what is said outside the entry's own
	// notices (a fork, jobs stopped at the end).
	Getenv func(string) string
	Stderr io.Writer
	// LabelAsker marks a background subagent's context with who asks
	// for approval; nil leaves it as it is.
	LabelAsker func(ctx context.Context, label string) context.Context
}

// Endpoint describes the provider's endpoint without its secret: the
// wire format (--auth-type), the base URL requests go to, and where the
// key came from ("OPENAI_API_KEY", "the --openai-api-key flag"; "" for
// none).
type Endpoint struct {
	Wire, BaseURL, KeyFrom string
}

// Sandbox is how shell commands are confined: with Enabled, they may
// write only in the workspace, the temporary directory and WriteDirs,
// and use the network only with Network.
type Sandbox struct {
	Enabled   bool
	Network   bool
	WriteDirs []string
}
