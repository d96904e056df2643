package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/info"
)

// doctorDialTimeout bounds /doctor's connection to the endpoint.
const doctorDialTimeout = 5 * time.Second

// Doctor checks what the session depends on (/doctor): ply's version,
// the provider's endpoint and key, the kernel's sandbox, folder trust,
// the settings files, the hooks, the MCP servers, ply's home,
// checkpoints and git. It reaches the network only to open (and close)
// one TCP connection to the endpoint, or to the proxy the environment
// names; it sends nothing over it, so no key leaves the process.
func (c *Session) Doctor(ctx context.Context) []info.Check {
	ply := info.Check{Name: "ply", Detail: fmt.Sprintf("%s, %s, %s/%s", c.cfg.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)}
	checks := []info.Check{ply, c.providerCheck(), reachCheck(ctx, c.cfg.Endpoint.BaseURL, c.cfg.Getenv)}
	checks = append(checks, sandboxCheck(), c.trustCheck())
	checks = append(checks, c.settingsChecks()...)
	checks = append(checks, c.mcpChecks()...)
	checks = append(checks, homeCheck(c.cfg.Home), c.checkpointCheck())
	return append(checks, programCheck("git", "the repository snapshot the model is given and the commands it runs"))
}

func (c *Session) providerCheck() info.Check {
	e := c.cfg.Endpoint
	ch := info.Check{Name: "provider", Detail: fmt.Sprintf("%s wire format, model %s, endpoint %s", e.Wire, c.Model(), e.BaseURL)}
	if c.cfg.ProviderName != "" {
		ch.Detail += " (settings provider " + c.cfg.ProviderName + ")"
	}
	if e.KeyFrom == "" {
		ch.Detail += "; no API key"
		return ch
	}
	ch.Detail += "; API key from " + e.KeyFrom
	return ch
}

// reachCheck opens a TCP connection to the endpoint's host, or to the
// proxy the environment gives for it, and closes it.
func reachCheck(ctx context.Context, base string, getenv func(string) string) info.Check {
	ch := info.Check{Name: "endpoint reachable"}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		ch.Status, ch.Detail, ch.Fix = info.CheckFail, fmt.Sprintf("the base URL %q is not a URL", base), "set the base URL to the API's root, such as https://api.openai.com/v1"
		return ch
	}
	addr, via := hostPort(u), ""
	if p := proxyFor(u, getenv); p != nil {
		addr, via = hostPort(p), " through the proxy "+p.Redacted()
	}
	ctx, cancel := context.WithTimeout(ctx, doctorDialTimeout)
	defer cancel()
	start := time.Now()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		ch.Status, ch.Detail = info.CheckFail, fmt.Sprintf("cannot connect to %s%s: %v", addr, via, err)
		ch.Fix = "check the base URL, the network and any proxy (HTTPS_PROXY); ply -p \"hi\" shows the provider's own answer"
		return ch
	}
	conn.Close()
	ch.Detail = fmt.Sprintf("connected to %s%s in %d ms (a TCP connection only: nothing was sent)", addr, via, time.Since(start).Milliseconds())
	return ch
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "http" {
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return net.JoinHostPort(u.Hostname(), "443")
}

// proxyFor is the proxy the session's environment names for u, as the
// provider's HTTP client takes it; nil for none.
func proxyFor(u *url.URL, getenv func(string) string) *url.URL {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
		if getenv(k) != "" {
			p, err := http.ProxyFromEnvironment(&http.Request{URL: u})
			if err == nil {
				return p
			}
			return nil
		}
	}
	return nil
}

func sandboxCheck() info.Check {
	ch := info.Check{Name: "sandbox"}
	abi, err := SandboxAvailable()
	if err == nil {
		err = ReadOnlyAvailable()
	}
	if err != nil {
		ch.Status, ch.Detail = info.CheckWarn, "the kernel cannot confine shell commands: "+err.Error()
		ch.Fix = "commands that only read ask before they run, auto mode asks as auto-edit does, and --sandbox refuses commands; on Linux, a kernel with Landlock (5.13 or newer) lifts this"
		return ch
	}
	ch.Detail = fmt.Sprintf("Landlock ABI %d: commands that only read run unasked inside a read-only profile; --sandbox and auto mode confine the rest", abi)
	return ch
}

func (c *Session) trustCheck() info.Check {
	ch := info.Check{Name: "folder trust", Detail: "this folder is trusted: its .ply/settings.json, agents, skills and commands load"}
	if c.cfg.Trusted {
		return ch
	}
	ch.Detail = "this folder is not trusted: its own configuration is not loaded"
	if ignored := IgnoredConfig(c.ws.Root()); ignored != "" {
		ch.Status = info.CheckWarn
		ch.Detail += " (left out: " + ignored + ")"
		ch.Fix = "if you trust it, run ply trust here and start again"
	}
	return ch
}

// settingsChecks reports the settings files read, their keys ply does
// not know, and hooks on events ply never fires.
func (c *Session) settingsChecks() []info.Check {
	ch := info.Check{Name: "settings", Detail: "no settings file"}
	var paths, unknown []string
	for _, f := range c.cfg.SettingsFiles {
		paths = append(paths, f.Path)
		for _, u := range f.Unknown {
			unknown = append(unknown, u.String())
		}
	}
	if len(paths) > 0 {
		ch.Detail = "read " + strings.Join(paths, ", ")
	}
	if len(unknown) > 0 {
		ch.Status = info.CheckWarn
		ch.Detail += "; ignored: " + strings.Join(unknown, "; ")
		ch.Fix = "correct or remove the keys named (/config lists the ones ply reads)"
	}
	out := []info.Check{ch}
	if len(c.cfg.Settings.Hooks) == 0 {
		return out
	}
	hk := info.Check{Name: "hooks", Detail: plural(len(c.cfg.Settings.Hooks), "hook event") + " configured"}
	raw, err := json.Marshal(map[string]any{"hooks": c.cfg.Settings.Hooks})
	if err == nil {
		var hc hooks.Config
		if hc, err = hooks.Parse(raw); err == nil {
			if unfired := hc.Unfired(); len(unfired) > 0 {
				hk.Status, hk.Detail, hk.Fix = info.CheckWarn, strings.Join(unfired, "; "), "rename the events to ones ply fires (docs/configuration.md, Hooks)"
			}
		}
	}
	if err != nil {
		hk.Status, hk.Detail = info.CheckFail, err.Error()
	}
	return append(out, hk)
}

func (c *Session) mcpChecks() []info.Check {
	var out []info.Check
	for _, s := range c.MCPStatus() {
		ch := info.Check{Name: "MCP " + s.Name, Detail: s.Status + ", " + plural(len(s.Tools), "tool")}
		if s.Status != "connected" {
			ch.Status, ch.Detail = info.CheckFail, s.Status
			ch.Fix = "ply mcp list shows the error; the log file has the server's output"
		}
		out = append(out, ch)
	}
	return out
}

// homeCheck says whether ply's home takes writes, where the sessions,
// checkpoints and logs go, and how much room it has.
func homeCheck(home string) info.Check {
	ch := info.Check{Name: "ply home"}
	if home == "" {
		ch.Status, ch.Detail = info.CheckWarn, "none: sessions are not saved and there are no checkpoints"
		return ch
	}
	f, err := os.CreateTemp(home, ".doctor-*")
	if err != nil {
		ch.Status, ch.Detail = info.CheckFail, "cannot write in "+home+": "+err.Error()
		ch.Fix = "make it writable, or point PLY_HOME elsewhere: sessions and checkpoints cannot be saved"
		return ch
	}
	f.Close()
	os.Remove(f.Name())
	ch.Detail = home + " takes writes"
	if free, ok := freeBytes(home); ok {
		ch.Detail += fmt.Sprintf(", %d MB free", free>>20)
		if free < 256<<20 {
			ch.Status, ch.Fix = info.CheckWarn, "free some room: a full disk stops sessions and checkpoints from being saved"
		}
	}
	return ch
}

func (c *Session) checkpointCheck() info.Check {
	if c.cp == nil {
		return info.Check{Name: "checkpoints", Status: info.CheckWarn, Detail: "off: /rewind and /diff cannot restore or compare files",
			Fix: "turn them on with \"checkpointing\": {\"enabled\": true} in settings"}
	}
	return info.Check{Name: "checkpoints", Detail: "on: each prompt can be rewound (/rewind)"}
}

func programCheck(name, why string) info.Check {
	ch := info.Check{Name: name}
	p, err := exec.LookPath(name)
	if err != nil {
		ch.Status, ch.Detail, ch.Fix = info.CheckWarn, "not found on PATH", "install it for "+why
		return ch
	}
	ch.Detail = p
	return ch
}
