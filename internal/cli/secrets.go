package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/envpolicy"
	"github.com/plyhq/ply/internal/redact"
	"github.com/plyhq/ply/internal/settings"
)

// minSecretLen is the shortest environment value redacted from ply's
// output: shorter values ("1", "true", a short path) would mangle text.
const minSecretLen = 8

// setupSecrets decides what the processes ply starts see of environ
// (c.childEnv) and which strings ply never prints (c.secrets). Only the
// user's own settings file may adjust the environment; a project file's
// attempt is reported on stderr and ignored.
func setupSecrets(c *config, environ []string, stderr io.Writer) error {
	c.user = settings.User(c.home, c.settingsFiles)
	for _, ig := range settings.Ignored(c.home, c.settingsFiles) {
		fmt.Fprintf(stderr, "ply: warning: %s is ignored: only your own settings file (%s) may set it\n",
			ig, filepath.Join(c.home, "settings.json"))
	}
	se := c.user.ShellEnvironment
	var creds []string
	if c.keyEnv != "" {
		creds = append(creds, c.keyEnv)
	}
	if env := core.SearchKeyEnv(c.user.Tools.WebSearch); env != "" && c.user.Tools.WebSearch.Provider != "" {
		creds = append(creds, env) // the web search key
	}
	pol, err := envpolicy.New(envpolicy.Config{Include: se.Include, Exclude: se.Exclude, Set: se.Set, Credentials: creds})
	if err != nil {
		return fmt.Errorf("settings shellEnvironment: %w", err)
	}
	c.childEnv = pol.Environ(environ)
	c.secrets = pol.SecretValues(environ, minSecretLen)
	if c.apiKey != "" && !slices.Contains(c.secrets, c.apiKey) {
		c.secrets = append(c.secrets, c.apiKey)
	}
	for name, v := range c.headers {
		c.secrets = append(c.secrets, headerSecrets(name, v)...)
	}
	return nil
}

// headerSecrets returns the parts of a configured request header that are
// credentials: the value of Authorization (and its token alone) or of a
// header whose name looks secret.
func headerSecrets(name, value string) []string {
	if len(value) < minSecretLen {
		return nil
	}
	if strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization") {
		out := []string{value}
		if _, tok, ok := strings.Cut(value, " "); ok && len(tok) >= minSecretLen {
			out = append(out, strings.TrimSpace(tok))
		}
		return out
	}
	if envpolicy.SecretName(strings.ReplaceAll(name, "-", "_")) {
		return []string{value}
	}
	return nil
}

// redactIO returns sio with stderr, and stdout unless the interactive UI
// owns the terminal, passing through r. flush writes what they hold back
// (the start of what might have been a secret); call it before exiting.
func redactIO(sio IO, r *redact.Redactor, interactive bool) (_ IO, flush func()) {
	if r == nil {
		return sio, func() {}
	}
	errW := r.Writer(sio.Stderr)
	sio.Stderr = errW
	if interactive {
		return sio, func() { _ = errW.Flush() }
	}
	outW := r.Writer(sio.Stdout)
	sio.Stdout = outW
	return sio, func() {
		_ = outW.Flush()
		_ = errW.Flush()
	}
}
