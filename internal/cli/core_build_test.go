package cli

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/session"
)

// core.New refuses to start on inputs it cannot honour, with the exit
// code of their kind and a one-line error that names what is wrong.
func TestBuildCoreRefusals(t *testing.T) {
	const id = "5b0c7d3e-2f4a-4c1b-9e8d-6a7f0b1c2d3e"
	cases := []struct {
		name     string
		settings string            // the user's settings.json, if any
		env      map[string]string // added to the run's environment
		args     []string          // before -p
		// prep changes the resolved configuration or the disk before
		// core.New runs.
		prep  func(t *testing.T, cfg *config)
		code  int
		match string
	}{
		{
			name: "negative shell output limit", settings: `{"tools": {"shellOutputLimit": -1}}`,
			code: exitcode.Config, match: "tools.shellOutputLimit is -1",
		},
		{
			name: "unknown approval mode", prep: func(_ *testing.T, cfg *config) { cfg.mode = "sometimes" },
			code: exitcode.Input, match: `unknown approval mode "sometimes"`,
		},
		{
			name: "permission rule that does not parse", settings: `{"permissions": {"deny": ["read_file()"]}}`,
			code: exitcode.Input, match: "bad permission rule",
		},
		{
			name: "session id that is not a UUID", args: []string{"--session-id", "first"},
			code: exitcode.Input, match: `--session-id "first" is not a UUID`,
		},
		{
			name: "session directory blocked by a file", args: []string{"--session-id", id},
			prep: func(t *testing.T, cfg *config) {
				dir, err := session.ArtifactDir(cfg.home, cfg.workspace, id)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, dir, "not a directory", 0o644)
			},
			code: exitcode.Error, match: "creating the session directory",
		},
		{
			name: "hook entry without a command", settings: `{"hooks": {"PreToolUse": [{"matcher": "shell"}]}}`,
			code: exitcode.Config, match: "settings hooks",
		},
		{
			name: "retry delay scale that is not a number", env: map[string]string{"PLY_RETRY_DELAY_SCALE": "fast"},
			code: exitcode.Config, match: `PLY_RETRY_DELAY_SCALE="fast" is not a non-negative number`,
		},
		{
			name: "negative retry delay scale", env: map[string]string{"PLY_RETRY_DELAY_SCALE": "-1"},
			code: exitcode.Config, match: `PLY_RETRY_DELAY_SCALE="-1"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
			if tc.settings != "" {
				writeFile(t, filepath.Join(home, "settings.json"), tc.settings, 0o644)
			}
			env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1", "PLY_HOME": home}
			for k, v := range tc.env {
				env[k] = v
			}
			sio := IO{Stdin: strings.NewReader(""), StdinIsTTY: true, Stdout: io.Discard, Stderr: io.Discard,
				Getenv: func(k string) string { return env[k] }, Cwd: dir}
			opts, err := Parse(append(tc.args, "-p", "x"))
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := resolve(opts, sio)
			if err != nil {
				t.Fatalf("resolve refused the run before core.New: %v", err)
			}
			if tc.prep != nil {
				tc.prep(t, cfg)
			}
			c, code, err := core.New(context.Background(), cfg.coreConfig(sio), io.Discard, slog.New(slog.DiscardHandler))
			if err == nil {
				c.Close()
				t.Fatalf("core.New accepted the run; want exit %d with %q", tc.code, tc.match)
			}
			if c != nil || code != tc.code || !strings.Contains(err.Error(), tc.match) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("core.New = %v, %d, %q; want no core, exit %d and one line with %q", c, code, err, tc.code, tc.match)
			}
		})
	}
}

// A refused start releases what it acquired: after a refusal that comes
// once the session is open, the same session opens again.
func TestBuildCoreRefusalReleasesTheSession(t *testing.T) {
	const id = "0d9e8f7a-6b5c-4d3e-8f1a-2b3c4d5e6f70"
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1", "PLY_HOME": home,
		"PLY_RETRY_DELAY_SCALE": "-1"}
	build := func(args ...string) (*core.Session, error) {
		sio := IO{Stdin: strings.NewReader(""), StdinIsTTY: true, Stdout: io.Discard, Stderr: io.Discard,
			Getenv: func(k string) string { return env[k] }, Cwd: dir}
		opts, err := Parse(append(args, "-p", "x"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, _, err := resolve(opts, sio)
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := core.New(context.Background(), cfg.coreConfig(sio), io.Discard, slog.New(slog.DiscardHandler))
		return c, err
	}
	if _, err := build("--session-id", id); err == nil {
		t.Fatal("core.New accepted a negative PLY_RETRY_DELAY_SCALE")
	}
	delete(env, "PLY_RETRY_DELAY_SCALE")
	c, err := build("--resume", id)
	if err != nil {
		t.Fatalf("the session stays held after a refused start: %v", err)
	}
	c.Close()
}
