// Command ply is a coding agent for the terminal. See the README.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/plyhq/ply/internal/cli"
	"github.com/plyhq/ply/internal/envpolicy"
	"github.com/plyhq/ply/internal/sandbox"
)

func main() {
	// This binary is also the sandbox's helper and the guardian that
	// ends shell commands when ply ends; that must be decided before
	// anything else runs.
	sandbox.MaybeRunHelper()
	// The commands ply runs are the same user: keep them out of its
	// memory and initial environment, where the API key is.
	if err := envpolicy.Protect(); err != nil {
		fmt.Fprintf(os.Stderr, "ply: warning: %v\n", err)
	}
	ctx, cancel := cli.SignalContext(context.Background())
	stdinTTY := false
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		stdinTTY = true
	}
	stdoutTTY := false
	if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		stdoutTTY = true
	}
	code := cli.Main(ctx, os.Args[1:], cli.IO{
		Stdin: os.Stdin, StdinIsTTY: stdinTTY, StdoutIsTTY: stdoutTTY, Stdout: os.Stdout, Stderr: os.Stderr,
	})
	cancel()
	os.Exit(code)
}
