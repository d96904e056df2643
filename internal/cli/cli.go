// Package cli is ply's command: it parses flags and the environment,
// builds the layers (provider, chat, client, scheduler, tools) and hands
// them to the entry loop. It owns exit codes and the one-line errors a
// user sees for bad input; it owns no agent logic.
package cli

import (
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

	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/tools"
)

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "0.1.0-dev"

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
	if len(args) > 0 && args[0] == "sessions" {
		return sessionsCommand(args[1:], sio)
	}
	if len(args) > 0 && args[0] == "mcp" {
		return mcpCommand(ctx, args[1:], sio)
	}
	opts, err := Parse(args)
	if err != nil {
		return fail(sio, headless.ExitInput, err.Error())
	}
	if opts.Help {
		fmt.Fprint(sio.Stdout, usage())
		return 0
	}
	if opts.Version {
		fmt.Fprintln(sio.Stdout, "ply", Version)
		return 0
	}
	cfg, code, err := resolve(opts, sio)
	if err != nil {
		return fail(sio, code, err.Error())
	}
	logger, closeLog := openLog(cfg.home, opts.Debug)
	defer closeLog()
	slog.SetDefault(logger)
	if cfg.interactive {
		return runTUI(ctx, cfg, sio, logger)
	}
	return runHeadless(ctx, cfg, sio, logger)
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
	workspace     string
	home          string
	mcp           map[string]mcp.ServerConfig
	// interactive: no prompt, on a terminal; the UI asks for one.
	interactive bool
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
		return nil, headless.ExitInput, fmt.Errorf("unknown output format %q: use text, json or stream-json", c.format)
	}
	switch o.InputFormat {
	case "", "text":
	case "stream-json":
		if c.format != headless.FormatStreamJSON {
			return nil, headless.ExitInput, errors.New("--input-format stream-json needs --output-format stream-json")
		}
		c.streamInput = true
	default:
		return nil, headless.ExitInput, fmt.Errorf("unknown input format %q: use text or stream-json", o.InputFormat)
	}
	if len(o.Unknown) > 0 {
		if !c.streamInput && o.Channel != "SDK" {
			return nil, headless.ExitInput, fmt.Errorf("unknown flag %s (see ply --help)", o.Unknown[0])
		}
		fmt.Fprintf(sio.Stderr, "ply: warning: ignoring unknown flags %s\n", strings.Join(o.Unknown, " "))
	}
	if o.PartialMessages && c.format != headless.FormatStreamJSON {
		return nil, headless.ExitInput, errors.New("--include-partial-messages needs --output-format stream-json")
	}
	if o.Continue && o.Resume != "" {
		return nil, headless.ExitInput, errors.New("--continue and --resume exclude each other")
	}
	if (o.Continue || o.Resume != "") && o.SessionID != "" {
		return nil, headless.ExitInput, errors.New("--session-id names a new session; it cannot be used with --continue or --resume")
	}
	c.mode = o.ApprovalMode
	if o.Yolo {
		if c.mode != "" && c.mode != "yolo" {
			return nil, headless.ExitInput, fmt.Errorf("--yolo conflicts with --approval-mode %s", c.mode)
		}
		c.mode = "yolo"
	}
	if c.mode == "" {
		c.mode = "default"
	}
	switch c.mode {
	case "yolo", "default", "auto-edit", "plan":
	default:
		return nil, headless.ExitInput, fmt.Errorf("unknown approval mode %q: use plan, default, auto-edit or yolo", c.mode)
	}

	// Prompt: -p, then positional words, then piped stdin.
	prompt := o.Prompt
	if len(o.Positional) > 0 {
		if prompt != "" {
			prompt += "\n\n"
		}
		prompt += strings.Join(o.Positional, " ")
	}
	if sio.Stdin != nil && !sio.StdinIsTTY && !c.streamInput {
		data, err := io.ReadAll(io.LimitReader(sio.Stdin, maxStdin+1))
		if err != nil {
			return nil, headless.ExitInput, fmt.Errorf("reading standard input: %w", err)
		}
		if len(data) > maxStdin {
			return nil, headless.ExitInput, fmt.Errorf("standard input is larger than %d MiB; pass a file path in the prompt instead", maxStdin>>20)
		}
		if s := strings.TrimRight(string(data), "\n"); strings.TrimSpace(s) != "" {
			if prompt != "" {
				prompt += "\n\n"
			}
			prompt += s
		}
	}
	if c.streamInput {
		// The prompt comes as user messages on stdin; read nothing here.
	} else if strings.TrimSpace(prompt) == "" && !o.Continue && o.Resume == "" {
		if !sio.StdinIsTTY || !sio.StdoutIsTTY {
			return nil, headless.ExitInput, errors.New("no prompt given: pass one with -p \"...\" or as arguments, or run ply in a terminal for the interactive UI")
		}
		c.interactive = true
	}
	c.prompt = prompt

	c.workspace = sio.Cwd
	if c.workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, headless.ExitError, fmt.Errorf("finding the working directory: %w", err)
		}
		c.workspace = wd
	}
	c.home = env("PLY_HOME")
	if c.home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			c.home = filepath.Join(h, ".ply")
		}
	}
	// Settings: the user's, then the project's; flags and the
	// environment override both.
	st, files, err := settings.Load(c.home, c.workspace)
	if err != nil {
		return nil, headless.ExitConfig, fmt.Errorf("bad settings file: %w", err)
	}
	c.settings, c.settingsFiles = st, files
	if o.ApprovalMode == "" && !o.Yolo && st.ApprovalMode != "" {
		c.mode = st.ApprovalMode
		switch c.mode {
		case "yolo", "default", "auto-edit", "plan":
		default:
			return nil, headless.ExitConfig, fmt.Errorf("settings: unknown approvalMode %q: use plan, default, auto-edit or yolo", c.mode)
		}
	}
	if c.mcp, err = mcpConfig(st, o.MCPConfig); err != nil {
		return nil, headless.ExitConfig, err
	}
	if code, err := resolveProvider(c, o, env); err != nil {
		return nil, code, err
	}
	if o.JSONSchema != "" {
		sch, err := loadSchema(o.JSONSchema, c.workspace)
		if err != nil {
			return nil, headless.ExitInput, err
		}
		c.schema = sch
	}
	return c, 0, nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// openLog opens the day's log file under home/logs; logging never goes to
// the terminal. Failing to open it is not fatal: logs are dropped.
func openLog(home string, debug bool) (*slog.Logger, func()) {
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
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})), func() { _ = f.Close() }
}

// sessionsCommand lists the project's saved sessions.
func sessionsCommand(args []string, sio IO) int {
	if len(args) > 0 {
		return fail(sio, headless.ExitInput, "ply sessions takes no arguments")
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, headless.ExitConfig, err.Error())
	}
	c := &config{home: home, workspace: workspace}
	ws, err := tools.NewWorkspace(c.workspace)
	if err != nil {
		return fail(sio, headless.ExitInput, err.Error())
	}
	if err := listSessions(c, ws.Root(), sio.Stdout); err != nil {
		return fail(sio, headless.ExitError, err.Error())
	}
	return 0
}
