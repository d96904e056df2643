package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/spell"
)

// Options are the parsed command line.
type Options struct {
	Prompt             string
	Positional         []string
	Model              string
	PromptInteractive  string
	OpenAIKey          string
	OpenAIBaseURL      string
	AuthType           string
	Provider           string
	OutputFormat       string
	InputFormat        string
	ApprovalMode       string
	Yolo               bool
	MaxSessionTurns    int
	MaxToolCalls       int
	MaxWallTime        time.Duration
	Continue           bool
	Resume             string
	SessionID          string
	ForkSession        bool
	SystemPrompt       string
	AppendSystemPrompt string
	IncludeDirs        []string
	MCPConfig          string
	AllowedTools       []string
	ExcludeTools       []string
	CoreTools          []string
	Channel            string
	JSONSchema         string
	PartialMessages    bool
	Debug              bool
	// Sandbox confines shell commands with Landlock (see sandbox.go).
	Sandbox          bool
	SandboxNetwork   bool
	SandboxWriteDirs []string
	AllowUnsandboxed bool
	// Worktree runs the session in a git worktree, WorktreeName's (a
	// new name when empty) (worktree.go).
	Worktree     bool
	WorktreeName string
	// TrustWorkspace trusts the workspace for this run only (CI).
	TrustWorkspace bool
	// ACP serves the Agent Client Protocol on stdio (acp.go).
	ACP bool
	// Unknown holds flags ply does not know. They are an error, except
	// for an SDK caller, which may pass flags of a newer protocol.
	Unknown []string
	Help    bool
	Version bool
	// Verbose is accepted for Claude Code's command lines, which need it
	// with stream-json; ply's output is complete without it.
	Verbose bool

	set map[string]bool // long names given on the command line
}

// flagSpec describes one flag. Exactly one of the pointers is set.
// aliases are other long names for it: the names Claude Code gives the
// same flag, so that its users' command lines and scripts work.
type flagSpec struct {
	long, short string
	aliases     []string
	str         *string
	list        *[]string
	boolean     *bool
	integer     *int
	dur         *time.Duration
	help        string
}

func (o *Options) specs() []flagSpec {
	return []flagSpec{
		{long: "prompt", short: "p", aliases: []string{"print"}, str: &o.Prompt, help: "run headless with this prompt (stdin, if piped, is appended)"},
		{long: "prompt-interactive", short: "i", str: &o.PromptInteractive, help: "open the interactive UI with this prompt already sent"},
		{long: "model", short: "m", str: &o.Model, help: "model name (env OPENAI_MODEL)"},
		{long: "openai-api-key", str: &o.OpenAIKey, help: "API key (env OPENAI_API_KEY)"},
		{long: "openai-base-url", str: &o.OpenAIBaseURL, help: "base URL of an OpenAI-compatible API (env OPENAI_BASE_URL)"},
		{long: "provider", str: &o.Provider, help: "a named provider from settings \"modelProviders\""},
		{long: "auth-type", str: &o.AuthType, help: "provider wire format: openai | openai-responses | anthropic | gemini"},
		{long: "output-format", short: "o", str: &o.OutputFormat, help: "text | json | stream-json"},
		{long: "input-format", str: &o.InputFormat, help: "text | stream-json"},
		{long: "approval-mode", aliases: []string{"permission-mode"}, str: &o.ApprovalMode, help: "plan | default | auto-edit | auto | yolo (auto: edits and every shell command unasked, commands in the kernel's workspace sandbox; all can be rewound; Claude Code's acceptEdits and bypassPermissions work too)"},
		{long: "acp", boolean: &o.ACP, help: "serve the Agent Client Protocol on stdin/stdout (for editors)"},
		{long: "yolo", short: "y", boolean: &o.Yolo, help: "approve every tool call (same as --approval-mode yolo)"},
		{long: "max-session-turns", aliases: []string{"max-turns"}, integer: &o.MaxSessionTurns, help: "stop after this many model rounds"},
		{long: "max-tool-calls", integer: &o.MaxToolCalls, help: "stop before running more than this many tool calls"},
		{long: "max-wall-time", dur: &o.MaxWallTime, help: "stop after this long (e.g. 90s, 10m; a bare number is seconds)"},
		{long: "continue", short: "c", boolean: &o.Continue, help: "continue the most recent session of this project"},
		{long: "resume", short: "r", str: &o.Resume, help: "resume the session with this id (or id prefix, or /rename's name)"},
		{long: "session-id", str: &o.SessionID, help: "id for a new session (with --fork-session: for the copy)"},
		{long: "fork-session", boolean: &o.ForkSession, help: "with -c or -r: go on in a new session copied from that one, even while another ply has it open"},
		{long: "system-prompt", str: &o.SystemPrompt, help: "replace the system prompt"},
		{long: "append-system-prompt", str: &o.AppendSystemPrompt, help: "append to the system prompt"},
		{long: "include-directories", aliases: []string{"add-dir"}, list: &o.IncludeDirs, help: "extra workspace roots (comma-separated, repeatable)"},
		{long: "allowed-tools", aliases: []string{"allowedTools"}, list: &o.AllowedTools, help: "allow rules, e.g. 'Bash(git *)',Edit (comma-separated)"},
		{long: "exclude-tools", aliases: []string{"disallowedTools"}, list: &o.ExcludeTools, help: "tools (or rules) never offered to the model"},
		{long: "core-tools", list: &o.CoreTools, help: "offer only these tools"},
		{long: "channel", str: &o.Channel, help: "caller channel (SDK)"},
		{long: "json-schema", str: &o.JSONSchema, help: "end the run with an object matching this JSON Schema ('{...}' or @file.json)"},
		{long: "mcp-config", str: &o.MCPConfig, help: "MCP servers: a JSON object {\"mcpServers\": {...}} or a file holding one"},
		{long: "include-partial-messages", boolean: &o.PartialMessages, help: "stream-json: also emit partial message deltas"},
		{long: "sandbox", boolean: &o.Sandbox, help: "run shell commands under Landlock and a seccomp filter (Linux) or sandbox-exec (macOS): they read and run anything, but write only in the workspace, $TMPDIR (when unset, a private directory removed at exit) and --sandbox-write-dir; create no sockets (no TCP, UDP or Unix-socket connections, socketpair(2) of stream type only); and signal only processes they started"},
		{long: "sandbox-network", boolean: &o.SandboxNetwork, help: "with --sandbox: let shell commands create sockets: TCP, UDP and Unix-socket connections"},
		{long: "sandbox-write-dir", list: &o.SandboxWriteDirs, help: "with --sandbox: another directory shell commands may write in (comma-separated, repeatable)"},
		{long: "allow-unsandboxed", boolean: &o.AllowUnsandboxed, help: "where the kernel has no sandbox (no Landlock): run commands that only read unasked, unconfined, instead of asking; with --sandbox, run shell commands unconfined instead of refusing them"},
		{long: "worktree", short: "w", boolean: &o.Worktree, help: "[NAME] work in the git worktree .ply/worktrees/NAME on branch ply/NAME, made from HEAD if missing (a new name if none; --worktree=NAME before a one-word prompt)"},
		{long: "trust-workspace", boolean: &o.TrustWorkspace, help: "trust this folder for this run only: load its .ply/settings.json and .ply/agents (for CI; 'ply trust' saves it)"},
		{long: "debug", short: "d", boolean: &o.Debug, help: "log at debug level to the log file"},
		{long: "verbose", boolean: &o.Verbose, help: "accepted for Claude Code's command lines; ply's output is complete without it"},
		{long: "help", short: "h", boolean: &o.Help, help: "show this help"},
		{long: "version", short: "v", boolean: &o.Version, help: "print the version"},
	}
}

// sdkLike reports whether args come from an SDK (stream-json input or the
// SDK channel), which may pass flags of a newer protocol.
func (o *Options) sdkLike(args []string) bool {
	for i, a := range args {
		if a == "--channel=SDK" || a == "--input-format=stream-json" ||
			(i+1 < len(args) && (a == "--channel" && args[i+1] == "SDK" || a == "--input-format" && args[i+1] == "stream-json")) {
			return true
		}
	}
	return false
}

// UsageError is a bad command line; it exits with code 42.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Parse reads args (without the program name). Flags and positional words
// may be mixed; "--" ends the flags.
func Parse(args []string) (*Options, error) {
	o := &Options{set: map[string]bool{}}
	specs := o.specs()
	byLong := map[string]*flagSpec{}
	byShort := map[string]*flagSpec{}
	for i := range specs {
		byLong[specs[i].long] = &specs[i]
		for _, a := range specs[i].aliases {
			byLong[a] = &specs[i]
		}
		if specs[i].short != "" {
			byShort[specs[i].short] = &specs[i]
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.Positional = append(o.Positional, args[i+1:]...)
			break
		}
		if j, ok := o.parseWorktreeFlag(args, i); ok {
			i = j
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			o.Positional = append(o.Positional, a)
			continue
		}
		var name, val string
		hasVal := false
		var spec *flagSpec
		if strings.HasPrefix(a, "--") {
			name = a[2:]
			if k := strings.IndexByte(name, '='); k >= 0 {
				name, val, hasVal = name[:k], name[k+1:], true
			}
			spec = byLong[name]
			if spec == nil {
				o.Unknown = append(o.Unknown, "--"+name)
				// A value that follows is the unknown flag's, when it
				// does not look like a flag itself.
				if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && o.sdkLike(args) {
					i++
				}
				continue
			}
		} else {
			name = a[1:2]
			if len(a) > 2 {
				val, hasVal = strings.TrimPrefix(a[2:], "="), true
			}
			spec = byShort[name]
			if spec == nil {
				return nil, &UsageError{Msg: fmt.Sprintf("unknown flag -%s (see ply --help)", name)}
			}
		}
		o.set[spec.long] = true
		if spec.boolean != nil {
			if hasVal {
				b, err := strconv.ParseBool(val)
				if err != nil {
					return nil, &UsageError{Msg: fmt.Sprintf("flag --%s takes true or false, not %q", spec.long, val)}
				}
				*spec.boolean = b
			} else {
				*spec.boolean = true
			}
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, &UsageError{Msg: fmt.Sprintf("flag --%s needs a value", spec.long)}
			}
			i++
			val = args[i]
		}
		if err := spec.set(val); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func (s *flagSpec) set(val string) error {
	switch {
	case s.str != nil:
		*s.str = val
	case s.list != nil:
		for _, v := range strings.Split(val, ",") {
			if v = strings.TrimSpace(v); v != "" {
				*s.list = append(*s.list, v)
			}
		}
	case s.integer != nil:
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return &UsageError{Msg: fmt.Sprintf("flag --%s takes a non-negative whole number, not %q", s.long, val)}
		}
		*s.integer = n
	case s.dur != nil:
		if n, err := strconv.ParseFloat(val, 64); err == nil && n >= 0 {
			*s.dur = time.Duration(n * float64(time.Second))
			return nil
		}
		d, err := time.ParseDuration(val)
		if err != nil || d < 0 {
			return &UsageError{Msg: fmt.Sprintf("flag --%s takes a duration such as 90s or 10m, not %q", s.long, val)}
		}
		*s.dur = d
	}
	return nil
}

// usage is the --help text.
func usage() string {
	var b strings.Builder
	b.WriteString("ply — a coding agent in your terminal\n\n")
	b.WriteString("Usage:\n  ply                    the interactive UI (in a terminal)\n" +
		"  ply -c | ply -r ID     the interactive UI on the latest session, or on session ID\n" +
		"  ply -i \"prompt\"        the interactive UI with this prompt already sent\n" +
		"  ply [flags] \"prompt\"   headless: a prompt as arguments or with -p runs without the UI\n" +
		"  ply -p \"prompt\" [flags]\n  git diff | ply -p \"review this\"\n  ply COMMAND [ARGS...]  one of the commands below\n\n")
	b.WriteString("Folder trust: a folder's own .ply/settings.json and .ply/agents load only once it is trusted\n(ply trust, or --trust-workspace for one run); its AGENTS.md and PLY.md are always read.\n\n")
	b.WriteString(securityHelp)
	b.WriteString("Environment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL, PLY_HOME, PLY_MAX_TOOL_CONCURRENCY,\n" +
		"PLY_STREAM_IDLE_TIMEOUT (a stalled response is retried after this long; default 300s)\n\nFlags:\n")
	var o Options
	for _, s := range o.specs() {
		name := "    --" + s.long
		if s.short != "" {
			name = "-" + s.short + ", --" + s.long
		}
		if s.boolean == nil {
			name += " value"
		}
		help := s.help
		if len(s.aliases) > 0 {
			help += " (also --" + strings.Join(s.aliases, ", --") + ")"
		}
		fmt.Fprintf(&b, "  %-32s %s\n", name, help)
	}
	b.WriteString("\nCommands (ply COMMAND --help for more):\n")
	writeCommands(&b, commands())
	b.WriteString("\n" + platformHelp)
	b.WriteString("\nExit codes:\n")
	for _, e := range exitcode.Table {
		fmt.Fprintf(&b, "  %-4d %s\n", e.Code, e.Means)
	}
	return b.String()
}

// platformHelp is --help's table of what each platform confines; the
// README's Platforms table says the same.
const platformHelp = `Platforms:
  Linux    read-only commands, --sandbox and auto mode confined by Landlock and seccomp (without
           Landlock they ask, and --sandbox refuses commands); commands end with ply (guardian)
  macOS    the same confined by Seatbelt (sandbox-exec); no guardian: a killed ply may leave
           commands running
  Windows  no kernel sandbox: read-only commands ask, auto asks as auto-edit does, --sandbox
           refuses every command; --allow-unsandboxed runs them unconfined; commands end with
           ply (each command's job object)
`

// securityHelp is --help's summary of what runs without asking and what
// holds it; docs/security.md has the whole model.
const securityHelp = `What runs without asking (default mode): tools that read or search, and shell commands
ply can prove only read inside the workspace (ls, cat, grep, git status, git diff, git log, ...).
Such a command runs under a read-only kernel profile (Landlock and seccomp, Linux): it may write
only a private temporary directory, creates no sockets and signals nothing it did not start, and
git runs with fsmonitor, hooks, the pager and network protocols off. Everything else asks (in
headless runs: is refused) unless a rule or --approval-mode allows it; deny rules match every
command whose program is known only at run time. Commands, hooks and MCP servers get no variable
whose name contains KEY, SECRET, TOKEN, PASSWORD, PASSWD or CREDENTIAL, nor the one holding the
API key (settings shellEnvironment adjusts this); known secrets are printed as [redacted].
Commands end with ply, however it ends.

--approval-mode auto also runs edits inside the workspace and every other shell command without
asking; a command runs in the kernel's workspace sandbox: it writes only the workspace, a private
tmp and per-project caches under $PLY_HOME/sandbox-cache, reads nothing of the home directory but
toolchains and module caches, and has no network. A command may ask to run outside the sandbox
(it then asks; headless: refused). Everything done can be undone with ply rewind. Without Landlock,
auto asks for commands as auto-edit does.

`

// flagSuggestion is " (did you mean --NAME?)" for the flag closest to the
// unknown flag name, or "" when none is close.
func flagSuggestion(name string) string {
	var o Options
	var names []string
	for _, s := range o.specs() {
		names = append(names, s.long)
		names = append(names, s.aliases...)
	}
	name = strings.TrimLeft(name, "-")
	near := spell.Closest(name, names, 1, spell.Lower, func(cand string, d int) bool {
		return d <= max(2, len(cand)/4) || strings.HasPrefix(cand, spell.Lower(name))
	})
	if len(near) == 0 {
		return ""
	}
	return " (did you mean --" + near[0] + "?)"
}
