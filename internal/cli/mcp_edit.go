package cli

import (
	"context"
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

// settingsPath is the file a scope names.
func settingsPath(scope, home, workspace string) string {
	if scope == "project" {
		return settings.ProjectFile(workspace)
	}
	return filepath.Join(home, "settings.json")
}

// mcpAddCommand is `ply mcp add`.
func mcpAddCommand(_ context.Context, args []string, sio IO) int {
	a, err := mcp.ParseAddArgs(args)
	if err != nil {
		return fail(sio, exitcode.Input, "ply mcp add: "+err.Error()+"\n"+mcpAddUsage)
	}
	raw, err := a.Entry()
	if err != nil {
		return fail(sio, exitcode.Input, "ply mcp add: "+err.Error())
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	path := settingsPath(a.Scope, home, workspace)
	if err := settings.SetMCPServer(path, a.Name, raw); err != nil {
		return fail(sio, exitcode.Input, "ply mcp add: "+err.Error())
	}
	fmt.Fprintf(sio.Stdout, "Added %s MCP server %q to %s\n", a.Transport, a.Name, path)
	if a.Scope == "project" {
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
