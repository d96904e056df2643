package cli

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/mcp"
	"github.com/plyhq/ply/internal/settings"
)

// loginTimeout bounds a login, the user's approval in the browser
// included.
const loginTimeout = 5 * time.Minute

// mcpLoginCommand is `ply mcp login NAME` and `ply mcp logout NAME`.
func mcpLoginCommand(ctx context.Context, args []string, sio IO, logout bool) int {
	verb := "login"
	if logout {
		verb = "logout"
	}
	device := false
	if !logout && len(args) > 0 && args[0] == "--device" {
		device, args = true, args[1:]
	}
	if len(args) != 1 {
		return fail(sio, exitcode.Input, "usage: ply mcp "+verb+" [--device] NAME")
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	ft := checkTrust(home, workspace, false, sio.Stderr)
	st, _, err := settings.Load(home, workspace, ft.trusted)
	if err != nil {
		return fail(sio, exitcode.Config, "bad settings file: "+err.Error())
	}
	servers, err := mcp.ParseServers(st.MCPServers)
	if err != nil {
		return fail(sio, exitcode.Config, "settings: "+err.Error())
	}
	cfg, ok := servers[args[0]]
	if !ok {
		return fail(sio, exitcode.Input, fmt.Sprintf("ply mcp %s: no MCP server named %q in the settings", verb, args[0]))
	}
	if cfg.URL == "" {
		return fail(sio, exitcode.Input, fmt.Sprintf("ply mcp %s: %q is not an HTTP server", verb, args[0]))
	}
	if logout {
		if err := mcp.Logout(cfg, core.OAuthDir(home)); err != nil {
			return fail(sio, exitcode.Error, err.Error())
		}
		fmt.Fprintf(sio.Stdout, "Removed the stored token of %q.\n", cfg.Name)
		return 0
	}
	lctx, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	if !device && !hasBrowser(sio.Getenv) {
		device = true
		fmt.Fprintln(sio.Stderr, "No browser here (no DISPLAY): using the device flow; --device chooses it anywhere.")
	}
	if device {
		err = mcp.LoginDevice(lctx, cfg, mcp.LoginOptions{Dir: core.OAuthDir(home), Notify: func(msg string) { fmt.Fprintln(sio.Stderr, msg) }})
	} else {
		err = mcp.Login(lctx, cfg, mcp.LoginOptions{
			Dir:     core.OAuthDir(home),
			OpenURL: openBrowser,
			Notify: func(u string) {
				fmt.Fprintf(sio.Stderr, "Opening the authorization page of %q in your browser. If it does not open, visit:\n  %s\n", cfg.Name, u)
			},
		})
	}
	if err != nil {
		return fail(sio, exitcode.Error, fmt.Sprintf("ply mcp login %s: %v", cfg.Name, err))
	}
	fmt.Fprintf(sio.Stdout, "Logged in to %q; the token is stored under %s.\n", cfg.Name, core.OAuthDir(home))
	return 0
}

// openBrowser asks the desktop to open u; it does not wait for the
// browser.
func openBrowser(ctx context.Context, u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", u)
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.CommandContext(ctx, "xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// hasBrowser guesses whether a browser can be opened here: on Linux and
// the BSDs only with a display.
func hasBrowser(getenv func(string) string) bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
