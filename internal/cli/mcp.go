package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/redact"
	"github.com/plyhq/ply/internal/settings"
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
	statuses := mcp.List(lctx, servers, mcp.Options{Logger: log.With("component", "mcp"), ClientVersion: Version, Env: c.childEnv, OAuthDir: core.OAuthDir(home)})
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
