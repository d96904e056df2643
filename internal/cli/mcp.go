package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/redact"
	"github.com/plyhq/ply/internal/sdk"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/tools"
)

// mcpConfig merges the settings' mcpServers with those of --mcp-config,
// the flag's winning by name. A broken entry anywhere stops the start:
// running without a server the user configured would be a surprise later.
// "trust" counts only from the user's own settings file (under home) and
// the flag: a cloned project must not approve its own server's calls.
func mcpConfig(st settings.Settings, files []settings.File, home, flag string) (map[string]mcp.ServerConfig, error) {
	servers, err := mcp.ParseServers(st.MCPServers)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	user := settings.User(home, files).MCPServers
	for name, sc := range servers {
		if sc.Trust && !bytes.Equal(user[name], st.MCPServers[name]) {
			sc.Trust = false // the entry in force is not the user's
			servers[name] = sc
		}
	}
	if flag != "" {
		extra, err := mcp.ParseConfigFlag(flag)
		if err != nil {
			return nil, err
		}
		if servers == nil {
			servers = map[string]mcp.ServerConfig{}
		}
		maps.Copy(servers, extra)
	}
	return servers, nil
}

// trustedServers returns allow rules for the servers marked trust: their
// tools run without asking, as in the peers' configuration files.
func trustedServers(servers map[string]mcp.ServerConfig) []string {
	var rules []string
	for _, s := range servers {
		if s.Trust && !s.Disabled {
			rules = append(rules, "mcp__"+s.ID)
		}
	}
	return rules
}

// startMCP starts the configured servers in the background; addMCPTools
// later waits for them. Between the two, the rest of start-up runs.
func startMCP(ctx context.Context, cfg *config, log *slog.Logger) *mcp.Manager {
	if len(cfg.mcp) == 0 {
		return nil
	}
	return mcp.Start(ctx, cfg.mcp, mcp.Options{Logger: log.With("component", "mcp"), ClientVersion: Version, Env: cfg.childEnv, OAuthDir: oauthDir(cfg.home)})
}

// addMCPTools registers the tools of the servers that started, unless the
// policy does not offer them, and reports each server that failed once,
// on notices. It returns the servers' states for the init message.
// Past the threshold d holds, they are deferred behind tool_search.
func addMCPTools(ctx context.Context, m *mcp.Manager, reg *tools.Registry, offered func(string) bool, notices io.Writer, d deferral) []headless.MCPServer {
	if m == nil {
		return nil
	}
	ts, fails := m.Tools(ctx)
	var states []headless.MCPServer
	connected := map[string]bool{}
	var keep []tools.Tool
	for _, t := range ts {
		if mt, ok := t.(*mcp.Tool); ok {
			connected[mt.Server()] = true
		}
		if offered(t.Name()) {
			keep = append(keep, t)
		}
	}
	d.register(reg, keep, offered)
	for _, t := range mcp.ResourceTools(ctx, m) {
		if offered(t.Name()) {
			reg.Register(t)
		}
	}
	for name := range connected {
		states = append(states, headless.MCPServer{Name: name, Status: "connected"})
	}
	for _, f := range fails {
		fmt.Fprintf(notices, "ply: warning: MCP server %q is not available, continuing without it: %v\n", f.Server, oneLine(f.Err))
		states = append(states, headless.MCPServer{Name: f.Server, Status: "failed"})
	}
	return states
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// mcpListCommand is `ply mcp list [--mcp-config JSON|FILE]`: it connects
// to every configured server, lists its tools, and disconnects.
func mcpListCommand(ctx context.Context, args []string, sio IO) int {
	var flag string
	rest := args
	for len(rest) > 0 {
		switch a := rest[0]; {
		case a == "--mcp-config" && len(rest) > 1:
			flag, rest = rest[1], rest[2:]
		case strings.HasPrefix(a, "--mcp-config="):
			flag, rest = strings.TrimPrefix(a, "--mcp-config="), rest[1:]
		default:
			return fail(sio, exitcode.Input, fmt.Sprintf("ply mcp list: unexpected argument %q (usage: ply mcp list [--mcp-config JSON|FILE])", a))
		}
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	ft := checkTrust(home, workspace, false, sio.Stderr)
	if ft.ignored != "" {
		fmt.Fprintln(sio.Stderr, untrustedNotice(ft.ignored))
	}
	st, files, err := settings.Load(home, workspace, ft.trusted)
	if err != nil {
		return fail(sio, exitcode.Config, "bad settings file: "+err.Error())
	}
	c := &config{home: home, settingsFiles: files}
	if err := setupSecrets(c, os.Environ(), sio.Stderr); err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	servers, err := mcpConfig(st, files, home, flag)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	red := redact.New(c.secrets, minSecretLen)
	sio, flush := redactIO(sio, red, false) // a server's error may quote its token
	defer flush()
	log, closeLog := openLog(home, false, red)
	defer closeLog()
	lctx, cancel := context.WithTimeout(ctx, mcp.DefaultConnectTimeout+5*time.Second)
	defer cancel()
	statuses := mcp.List(lctx, servers, mcp.Options{Logger: log.With("component", "mcp"), ClientVersion: Version, Env: c.childEnv, OAuthDir: oauthDir(home)})
	if err := mcp.FormatList(sio.Stdout, statuses); err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	for _, s := range statuses {
		if !s.Disabled && !s.Connected {
			return exitcode.Error // listed, but the caller should know
		}
	}
	return 0
}

// locate finds ply's home and the workspace, for the subcommands that
// need no provider.
func locate(sio IO) (home, workspace string, err error) {
	home = sio.Getenv("PLY_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", "", errors.New("no home directory: set PLY_HOME")
		}
		home = filepath.Join(h, ".ply")
	}
	workspace = sio.Cwd
	if workspace == "" {
		if workspace, err = os.Getwd(); err != nil {
			return "", "", fmt.Errorf("finding the working directory: %w", err)
		}
	}
	return home, workspace, nil
}

// addSDKServers starts the MCP servers an SDK named in its initialize
// request and offers their tools from the next request on. The SDK's
// caller chose them, as a user chooses those of --mcp-config.
// Embedded servers (in the SDK's process) are reached through send.
func (c *core) addSDKServers(ctx context.Context, cfg *config, raw map[string]json.RawMessage, embedded []string, send sdk.MCPSender, log *slog.Logger, notices io.Writer) ([]headless.MCPServer, []string, error) {
	servers, err := mcp.ParseServers(raw)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range embedded {
		servers[name] = mcp.EmbeddedServer(name, func(ctx context.Context, msg json.RawMessage) (json.RawMessage, error) {
			return send(ctx, name, msg)
		})
	}
	// Trust in these servers is the SDK caller's, as in --mcp-config.
	if err := c.policy.Grant("the SDK's mcpServers", trustedServers(servers)); err != nil {
		return nil, nil, fmt.Errorf("trusting the SDK's MCP servers: %w", err)
	}
	m := mcp.Start(ctx, servers, mcp.Options{Logger: log.With("component", "mcp"), ClientVersion: Version, Env: cfg.childEnv, OAuthDir: oauthDir(cfg.home)})
	c.closers = append(c.closers, func() {
		if err := m.Close(); err != nil {
			log.Warn("closing MCP servers", "err", err)
		}
	})
	states := addMCPTools(ctx, m, c.reg, c.policy.Offered, notices, c.deferral(cfg))
	c.chat.SetTools(c.reg.Decls())
	return states, c.reg.Names(), nil
}
