// Package cli is ply's command: it parses flags and the environment,
// resolves them into a core.Config, and hands the session core.New builds
// to the entry loop (headless, the SDK, the interactive UI, ACP). It owns
// exit codes and the one-line errors a user sees for bad input; it owns
// no agent logic.
package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/redact"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/telemetry"
	"github.com/plyhq/ply/internal/tui"
)

// Version and Commit are stamped by the release build (release/build)
// with -ldflags "-X github.com/plyhq/ply/internal/cli.Version=... -X
// ...cli.Commit=..."; unstamped, versionLine reads what the Go toolchain
// recorded.
var (
	Version = devVersion
	Commit  = ""
)

// IO is the process's standard streams and environment.
type IO struct {
	Stdin      io.Reader
	StdinIsTTY bool
	// StdoutIsTTY, with StdinIsTTY, lets ply with no prompt open the
	// interactive UI.
	StdoutIsTTY    bool
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Cwd            string
}

// maxStdin caps piped input appended to the prompt.
const maxStdin = 8 << 20

// Main runs ply with args and returns the exit code.
func Main(ctx context.Context, args []string, sio IO) int {
	if sio.Getenv == nil {
		sio.Getenv = os.Getenv
	}
	if code, ok := runCommand(ctx, commands(), args, sio); ok {
		return code
	}
	opts, err := Parse(args)
	if err != nil {
		return fail(sio, exitcode.Input, err.Error())
	}
	if opts.Help {
		fmt.Fprint(sio.Stdout, usage())
		return 0
	}
	if opts.Version {
		return dispatch(ctx, lookup(commands(), "version"), "ply version", nil, sio)
	}
	cfg, code, err := resolve(opts, sio)
	if err != nil {
		return fail(sio, code, err.Error())
	}
	awaitSignals(ctx)
	if cfg.interactive {
		if code, err = settleTrust(ctx, cfg, sio, askTrust(sio)); err != nil {
			return fail(sio, code, err.Error())
		}
		// The UI shows them: a line printed now scrolls out of view.
		cfg.startNotice = strings.TrimSpace(cfg.worktreeNotice + "\n" + cfg.startNotice + "\n" + cfg.providerNotice + "\n" + cfg.settingsNotice)
	} else {
		// stderr, never stdout: stream-json readers parse stdout.
		if cfg.trust.ignored != "" {
			fmt.Fprintln(sio.Stderr, untrustedNotice(cfg.trust.ignored))
		}
		for _, n := range []string{cfg.worktreeNotice, cfg.providerNotice, cfg.settingsNotice} {
			if n != "" {
				fmt.Fprintln(sio.Stderr, n)
			}
		}
	}
	// From here on, nothing ply prints holds a credential it knows.
	red := redact.New(cfg.secrets, minSecretLen)
	sio, flush := redactIO(sio, red, cfg.interactive)
	defer flush()
	logger, closeLog := openLog(cfg.home, opts.Debug, red)
	defer closeLog()
	slog.SetDefault(logger)
	tel, err := telemetry.Start(telemetry.Config{
		Settings: cfg.user.Telemetry, Getenv: sio.Getenv, Version: Version, Log: logger, Redact: red.String})
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	defer shutdownTelemetry(tel, logger)
	cfg.telemetry = tel
	if opts.ACP {
		return runACP(ctx, cfg, sio, logger)
	}
	if cfg.interactive {
		return runTUI(ctx, cfg, sio, logger)
	}
	return runHeadless(ctx, cfg, sio, logger)
}

// shutdownTelemetry flushes what telemetry holds, for at most
// telemetry.ShutdownTimeout: a collector that is down does not hold the
// exit up for long, and its error goes to the log file.
func shutdownTelemetry(tel *telemetry.Provider, log *slog.Logger) {
	if tel == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.ShutdownTimeout)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		log.Warn("telemetry: flushing at exit", "err", err)
	}
}

func fail(sio IO, code int, msg string) int {
	fmt.Fprintf(sio.Stderr, "ply: %s\n", msg)
	return code
}

// config is the resolved run configuration.
type config struct {
	opts          *Options
	wire          *wireFormat
	contextWindow int
	net           netLimits // provider client limits (provider.go)
	maxOutput     int
	headers       map[string]string
	apiKey        string
	baseURL       string
	model         string
	format        string
	mode          string
	prompt        string
	streamInput   bool
	schema        json.RawMessage
	// settings are the merged settings files.
	settings      settings.Settings
	settingsFiles []settings.File
	// user is the user's own settings file: the only source of
	// webFetch and shellEnvironment.
	user settings.Settings
	// telemetry exports the session (nil: off).
	telemetry *telemetry.Provider
	// keyEnv names the variable the API key was read from; "" when it
	// came from a flag.
	keyEnv string
	// childEnv is the environment of shell commands, hooks and MCP
	// servers; secrets are the values ply must never print.
	childEnv  []string
	secrets   []string
	workspace string
	home      string
	mcp       map[string]mcp.ServerConfig
	// promptLater: a resumed session's next prompt comes later (--acp's
	// session/load), so it need not be given one now.
	promptLater bool
	// interactive: no prompt, on a terminal; the UI asks for one.
	interactive bool
	// flagMode is the approval mode the flags ask for ("" for none).
	flagMode string
	// trust says whether the workspace's own configuration is loaded;
	// startNotice is what the interactive UI shows about it at start.
	trust       folderTrust
	startNotice string
	// providerNotice says that a trusted project sends the key to a base
	// URL the user's own settings do not name.
	providerNotice string
	// settingsNotice names the settings files' keys ply does not read.
	settingsNotice string
	// worktree is the git worktree the run works in (nil for none);
	// worktreeNotice says so.
	worktree       *session.Worktree
	worktreeNotice string

	// effort is the reasoning tier of model.effort.
	effort llm.Effort
}

func resolve(o *Options, sio IO) (*config, int, error) {
	c := &config{opts: o}
	env := sio.Getenv
	c.format = o.OutputFormat
	if c.format == "" {
		c.format = headless.FormatText
	}
	switch c.format {
	case headless.FormatText, headless.FormatJSON, headless.FormatStreamJSON:
	default:
		return nil, exitcode.Input, fmt.Errorf("unknown output format %q: use text, json or stream-json", c.format)
	}
	switch o.InputFormat {
	case "", "text":
	case "stream-json":
		if c.format != headless.FormatStreamJSON {
			return nil, exitcode.Input, errors.New("--input-format stream-json needs --output-format stream-json")
		}
		c.streamInput = true
	default:
		return nil, exitcode.Input, fmt.Errorf("unknown input format %q: use text or stream-json", o.InputFormat)
	}
	if len(o.Unknown) > 0 {
		if !c.streamInput && o.Channel != "SDK" {
			return nil, exitcode.Input, fmt.Errorf("unknown flag %s%s (see ply --help)", o.Unknown[0], flagSuggestion(o.Unknown[0]))
		}
		fmt.Fprintf(sio.Stderr, "ply: warning: ignoring unknown flags %s\n", strings.Join(o.Unknown, " "))
	}
	if o.PartialMessages && c.format != headless.FormatStreamJSON {
		return nil, exitcode.Input, errors.New("--include-partial-messages needs --output-format stream-json")
	}
	if o.Continue && o.Resume != "" {
		return nil, exitcode.Input, errors.New("--continue and --resume exclude each other")
	}
	if o.ForkSession && !o.Continue && o.Resume == "" {
		return nil, exitcode.Input, errors.New("--fork-session copies the session --continue or --resume names: give one of them")
	}
	if (o.Continue || o.Resume != "") && o.SessionID != "" && !o.ForkSession {
		return nil, exitcode.Input, errors.New("--session-id names a new session; it cannot be used with --continue or --resume")
	}
	if !o.Sandbox {
		for _, f := range []string{"sandbox-network", "sandbox-write-dir"} {
			if o.set[f] {
				return nil, exitcode.Input, &UsageError{Msg: fmt.Sprintf("flag --%s needs --sandbox", f)}
			}
		}
	}
	c.flagMode = o.ApprovalMode
	if m, err := permission.ParseMode(o.ApprovalMode); err == nil && o.ApprovalMode != "" {
		c.flagMode = m.String() // Claude Code's names for the same modes
	}
	if o.Yolo {
		if c.flagMode != "" && c.flagMode != "yolo" {
			return nil, exitcode.Input, fmt.Errorf("--yolo conflicts with --approval-mode %s", c.flagMode)
		}
		c.flagMode = "yolo"
	}
	switch c.flagMode {
	case "", "yolo", "default", "auto-edit", "auto", "plan":
	default:
		return nil, exitcode.Input, fmt.Errorf("unknown approval mode %q: use plan, default, auto-edit, auto or yolo", c.flagMode)
	}

	// Prompt: -p, then positional words, then piped stdin.
	prompt := o.Prompt
	if len(o.Positional) > 0 {
		if prompt != "" {
			prompt += "\n\n"
		}
		prompt += strings.Join(o.Positional, " ")
	}
	if sio.Stdin != nil && !sio.StdinIsTTY && !c.streamInput && !o.ACP {
		data, err := io.ReadAll(io.LimitReader(sio.Stdin, maxStdin+1))
		if err != nil {
			return nil, exitcode.Input, fmt.Errorf("reading standard input: %w", err)
		}
		if len(data) > maxStdin {
			return nil, exitcode.Input, fmt.Errorf("standard input is larger than %d MiB; pass a file path in the prompt instead", maxStdin>>20)
		}
		if s := strings.TrimRight(string(data), "\n"); strings.TrimSpace(s) != "" {
			if prompt != "" {
				prompt += "\n\n"
			}
			prompt += s
		}
	}
	if o.PromptInteractive != "" {
		if prompt != "" || c.streamInput {
			return nil, exitcode.Input, errors.New("-i/--prompt-interactive opens the interactive UI: it cannot be used with -p, prompt arguments, piped input or --input-format stream-json")
		}
		if !sio.StdinIsTTY || !sio.StdoutIsTTY {
			return nil, exitcode.Input, errors.New("-i/--prompt-interactive needs a terminal; use -p \"...\" to run headless")
		}
		c.interactive = true
		prompt = o.PromptInteractive
	} else if c.streamInput || o.ACP {
		// The prompt comes as messages on stdin; read nothing here.
	} else if strings.TrimSpace(prompt) == "" && !o.Continue && o.Resume == "" {
		if !sio.StdinIsTTY || !sio.StdoutIsTTY {
			return nil, exitcode.Input, errors.New("no prompt given: pass one with -p \"...\" or as arguments, or run ply in a terminal for the interactive UI")
		}
		c.interactive = true
	} else if strings.TrimSpace(prompt) == "" && sio.StdinIsTTY && sio.StdoutIsTTY {
		// -c or -r ID with no prompt, in a terminal: the UI opens on the
		// session and the next prompt is typed there.
		c.interactive = true
	}
	if c.interactive && (o.Continue || o.Resume != "") {
		// The UI sends -i's prompt itself, after drawing the session.
		c.promptLater = true
	}
	c.prompt = prompt

	c.workspace = sio.Cwd
	if c.workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, exitcode.Error, fmt.Errorf("finding the working directory: %w", err)
		}
		c.workspace = wd
	}
	c.home = env("PLY_HOME")
	if c.home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			c.home = filepath.Join(h, ".ply")
		}
	}
	if code, err := c.resolveWorktree(); err != nil {
		return nil, code, err
	}
	c.trust = checkTrust(c.home, c.workspace, o.TrustWorkspace, sio.Stderr)
	if code, err := loadSettings(c, o, env); err != nil {
		return nil, code, err
	}
	if err := setupSecrets(c, os.Environ(), sio.Stderr); err != nil {
		return nil, exitcode.Config, err
	}
	if o.JSONSchema != "" {
		sch, err := loadSchema(o.JSONSchema, c.workspace)
		if err != nil {
			return nil, exitcode.Input, err
		}
		c.schema = sch
	}
	return c, 0, nil
}

// loadSettings reads the user's settings and, in a trusted workspace,
// the project's, and resolves what depends on them: the approval mode,
// the MCP servers and the provider. Flags and the environment override
// both files. It runs again when the user trusts the folder at start.
func loadSettings(c *config, o *Options, env func(string) string) (int, error) {
	st, files, err := settings.Load(c.home, c.workspace, c.trust.trusted)
	if err != nil {
		return exitcode.Config, fmt.Errorf("bad settings file: %w", err)
	}
	c.settings, c.settingsFiles = st, files
	c.settingsNotice = unknownSettings(files)
	c.mode = cmp.Or(c.flagMode, st.ApprovalMode, "default")
	switch c.mode {
	case "yolo", "default", "auto-edit", "auto", "plan":
	default:
		return exitcode.Config, fmt.Errorf("settings: unknown approvalMode %q: use plan, default, auto-edit, auto or yolo", c.mode)
	}
	if n := st.Model.MaxToolCallsPerTurn; n < 0 {
		return exitcode.Config, fmt.Errorf("settings: model.maxToolCallsPerTurn is %d: it must be 1 or more (the default is 100)", n)
	}
	if c.effort, err = llm.ParseEffort(st.Model.Effort); err != nil {
		return exitcode.Config, fmt.Errorf("settings: model.effort: %w", err)
	}
	if c.mcp, err = mcpConfig(st, files, c.home, o.MCPConfig); err != nil {
		return exitcode.Config, err
	}
	return resolveProvider(c, o, env)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// openLog opens the day's log file under home/logs, with what red knows
// redacted; logging never goes to the terminal. Failing to open it is not
// fatal: logs are dropped.
func openLog(home string, debug bool, red *redact.Redactor) (*slog.Logger, func()) {
	discard := slog.New(slog.DiscardHandler)
	if home == "" {
		return discard, func() {}
	}
	dir := filepath.Join(home, "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return discard, func() {}
	}
	f, err := os.OpenFile(filepath.Join(dir, "ply-"+time.Now().Format("2006-01-02")+".log"),
		os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return discard, func() {}
	}
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	w := red.Writer(f)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), func() {
		_ = w.Flush()
		_ = f.Close()
	}
}

// coreConfig is what the session is built from: the resolved values of
// c, the environment and streams of sio.
func (c *config) coreConfig(sio IO) core.Config {
	o := c.opts
	wire, base, key, model, headers, net := c.wire, c.baseURL, c.apiKey, c.model, c.headers, c.net
	return core.Config{
		Workspace: c.workspace, Worktree: c.worktree, IncludeDirs: o.IncludeDirs, Home: c.home, Version: Version,
		NewProvider: func() chat.Provider { return wire.newProvider(base, key, model, headers, net) },
		Model:       c.model, ProviderName: firstNonEmpty(o.Provider, c.settings.Provider),
		ContextWindow: c.contextWindow, MaxOutputTokens: c.maxOutput, Effort: c.effort, OtherModels: otherModels(c), Models: servedModels(c),
		Endpoint:  c.endpoint(),
		Telemetry: c.telemetry,
		Mode:      c.mode, Settings: c.settings, SettingsFiles: c.settingsFiles, User: c.user,
		Trusted: c.trust.trusted, ChildEnv: c.childEnv, MCP: c.mcp,
		SystemPrompt: o.SystemPrompt, AppendSystemPrompt: o.AppendSystemPrompt,
		AllowedTools: o.AllowedTools, ExcludeTools: o.ExcludeTools, CoreTools: o.CoreTools,
		Sandbox:          core.Sandbox{Enabled: o.Sandbox, Network: o.SandboxNetwork, WriteDirs: o.SandboxWriteDirs},
		AllowUnsandboxed: c.allowUnsandboxed(),
		Prompt:           c.prompt, SessionID: o.SessionID, Continue: o.Continue, Resume: o.Resume, Fork: o.ForkSession,
		Schema:      c.schema,
		Interactive: c.interactive, StreamInput: c.streamInput, PromptLater: c.promptLater,
		Getenv: sio.Getenv, Stderr: sio.Stderr,
		LabelAsker: tui.WithAsker,
	}
}

// allowUnsandboxed reports whether the user accepts running shell
// commands without the kernel's sandbox where it is missing:
// --allow-unsandboxed, or allowUnsandboxed in the user's own settings (a
// project's settings cannot turn the sandbox off).
func (c *config) allowUnsandboxed() bool {
	return c.opts.AllowUnsandboxed || c.user.AllowUnsandboxed
}

// unknownSettings is one warning line per key of files that ply does not
// read, "" when there is none.
func unknownSettings(files []settings.File) string {
	var lines []string
	for _, f := range files {
		for _, u := range f.Unknown {
			lines = append(lines, "ply: warning: "+u.String())
		}
	}
	return strings.Join(lines, "\n")
}
