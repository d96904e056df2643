package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/settings"
)

const mcpAddUsage = "usage: ply mcp add [--scope user|project] [-e KEY=VALUE]... NAME -- COMMAND [ARGS...]\n" +
	"       ply mcp add --transport http|sse [--scope user|project] [-H 'Name: value']... NAME URL\n" +
	"       ply mcp remove [--scope user|project] NAME\n" +
	"       ply mcp login [--device] NAME | ply mcp logout NAME   (OAuth for HTTP servers that require it)"

// mcpAdd is the parsed command line of `ply mcp add`.
type mcpAdd struct {
	scope     string
	transport string
	env       map[string]string
	headers   map[string]string
	name      string
	target    []string // command and args, or the URL
}

// parseMCPAdd reads `ply mcp add` arguments as `claude mcp add` takes
// them: options (anywhere before the command, or before "--"), the name,
// then the command and its arguments or the URL.
func parseMCPAdd(args []string) (mcpAdd, error) {
	a := mcpAdd{scope: "user", transport: "stdio"}
	var pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(pos) >= 2 || !strings.HasPrefix(arg, "-") {
			// After the name and the command, everything is the
			// command's.
			pos = append(pos, arg)
			continue
		}
		name, val, hasVal := strings.Cut(arg, "=")
		if !hasVal {
			if i+1 >= len(args) {
				return a, fmt.Errorf("%s needs a value", arg)
			}
			i++
			val = args[i]
		}
		switch name {
		case "-s", "--scope":
			a.scope = val
		case "-t", "--transport":
			a.transport = val
		case "-e", "--env":
			k, v, ok := strings.Cut(val, "=")
			if !ok || k == "" {
				return a, fmt.Errorf("-e %q: want KEY=VALUE", val)
			}
			if a.env == nil {
				a.env = map[string]string{}
			}
			a.env[k] = v
		case "-H", "--header":
			k, v, ok := strings.Cut(val, ":")
			if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(strings.TrimSpace(k), " \t") {
				return a, fmt.Errorf("-H %q: want 'Name: value'", val)
			}
			if a.headers == nil {
				a.headers = map[string]string{}
			}
			a.headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		default:
			return a, fmt.Errorf("unknown option %q", arg)
		}
	}
	if a.scope != "user" && a.scope != "project" {
		return a, fmt.Errorf("--scope %q: want user or project", a.scope)
	}
	if len(pos) < 2 {
		return a, errors.New("give a name and a command (or, with --transport http|sse, a URL)")
	}
	a.name, a.target = pos[0], pos[1:]
	return a, nil
}

// entry is the settings entry the command line describes, validated as
// ply will read it.
func (a mcpAdd) entry() (json.RawMessage, error) {
	m := map[string]any{}
	switch a.transport {
	case "stdio":
		if len(a.headers) > 0 {
			return nil, errors.New("-H is for HTTP servers; a stdio server takes -e")
		}
		m["command"] = a.target[0]
		if len(a.target) > 1 {
			m["args"] = a.target[1:]
		}
	case "http", "sse":
		if len(a.target) != 1 {
			return nil, fmt.Errorf("an %s server takes one URL, not %q", a.transport, a.target)
		}
		if len(a.env) > 0 {
			return nil, errors.New("-e is for stdio servers; an HTTP server takes -H")
		}
		m["type"], m["url"] = a.transport, a.target[0]
	default:
		return nil, fmt.Errorf("--transport %q: want stdio, http or sse", a.transport)
	}
	if len(a.env) > 0 {
		m["env"] = a.env
	}
	if len(a.headers) > 0 {
		m["headers"] = a.headers
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding the entry: %w", err)
	}
	// Checked as ply will read it; the file keeps $VARS as written.
	if _, err := mcp.ParseServers(map[string]json.RawMessage{a.name: raw}); err != nil {
		return nil, err
	}
	return raw, nil
}

// settingsPath is the file a scope names.
func settingsPath(scope, home, workspace string) string {
	if scope == "project" {
		return settings.ProjectFile(workspace)
	}
	return filepath.Join(home, "settings.json")
}

// mcpAddCommand is `ply mcp add`.
func mcpAddCommand(_ context.Context, args []string, sio IO) int {
	a, err := parseMCPAdd(args)
	if err != nil {
		return fail(sio, exitcode.Input, "ply mcp add: "+err.Error()+"\n"+mcpAddUsage)
	}
	raw, err := a.entry()
	if err != nil {
		return fail(sio, exitcode.Input, "ply mcp add: "+err.Error())
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	path := settingsPath(a.scope, home, workspace)
	if err := settings.SetMCPServer(path, a.name, raw); err != nil {
		return fail(sio, exitcode.Input, "ply mcp add: "+err.Error())
	}
	fmt.Fprintf(sio.Stdout, "Added %s MCP server %q to %s\n", a.transport, a.name, path)
	if a.scope == "project" {
		fmt.Fprintln(sio.Stdout, "Project settings are read only in a trusted folder (ply trust).")
	}
	return 0
}

// mcpRemoveCommand is `ply mcp remove [--scope user|project] NAME`.
// Without --scope it removes the server from the scope that has it.
func mcpRemoveCommand(_ context.Context, args []string, sio IO) int {
	scope, name := "", ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "--scope" || a == "-s") && i+1 < len(args):
			i++
			scope = args[i]
		case strings.HasPrefix(a, "--scope="):
			scope = strings.TrimPrefix(a, "--scope=")
		case name == "" && !strings.HasPrefix(a, "-"):
			name = a
		default:
			return fail(sio, exitcode.Input, fmt.Sprintf("ply mcp remove: unexpected argument %q\n%s", a, mcpAddUsage))
		}
	}
	if name == "" || (scope != "" && scope != "user" && scope != "project") {
		return fail(sio, exitcode.Input, "ply mcp remove: give the server's name (and --scope user or project)\n"+mcpAddUsage)
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	scopes := []string{"project", "user"}
	if scope != "" {
		scopes = []string{scope}
	}
	for _, s := range scopes {
		path := settingsPath(s, home, workspace)
		removed, err := settings.RemoveMCPServer(path, name)
		if err != nil {
			return fail(sio, exitcode.Config, "ply mcp remove: "+err.Error())
		}
		if removed {
			fmt.Fprintf(sio.Stdout, "Removed MCP server %q from %s\n", name, path)
			return 0
		}
	}
	return fail(sio, exitcode.Input, fmt.Sprintf("ply mcp remove: no MCP server named %q in the %s settings", name, strings.Join(scopes, " or ")))
}
