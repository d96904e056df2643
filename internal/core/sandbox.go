package core

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/sandbox"
	"github.com/plyhq/ply/internal/tools"
)

// SandboxAvailable and ReadOnlyAvailable probe the kernel; tests replace
// them to play a kernel without Landlock.
var (
	SandboxAvailable  = sandbox.Available
	ReadOnlyAvailable = sandbox.ReadOnlyAvailable
)

// readOnlyProfile returns the permission policy's probe of the read-only
// profile: where the kernel has none, it says once on notices that
// commands that only read will ask.
func readOnlyProfile(notices io.Writer) func() error {
	return func() error {
		err := ReadOnlyAvailable()
		if err != nil {
			fmt.Fprintf(notices, "ply: warning: the kernel has no read-only profile for shell commands (%v): commands that only read ask before running; --allow-unsandboxed or \"allowUnsandboxed\": true in your settings runs them unasked and unconfined\n", err)
		}
		return err
	}
}

// workspaceSandbox is the permission policy's probe of auto mode's
// workspace sandbox, which needs what the read-only profile needs:
// Landlock and the system call filter.
func workspaceSandbox() error { return ReadOnlyAvailable() }

// autoNotice says, when the kernel cannot hold auto mode's commands in
// the workspace sandbox, that auto asks for them as auto-edit does: auto
// never runs a command unconfined.
func autoNotice(p *permission.Policy, notices io.Writer) {
	if err := p.SandboxMissing(); err != nil {
		fmt.Fprintf(notices, "ply: warning: approval mode auto runs shell commands unasked only inside the kernel's sandbox, which this system cannot provide (%v): commands ask, as in auto-edit\n", err)
		return
	}
	if abi, err := SandboxAvailable(); err == nil && abi < sandbox.ScopeABI {
		fmt.Fprintf(notices, "ply: warning: Landlock ABI %d cannot keep auto mode's commands from signalling other processes of yours (needs %d)\n", abi, sandbox.ScopeABI)
	}
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// setupSandbox applies --sandbox and its companion flags to the shell
// tool. Without --sandbox, commands run unconfined as before. With it,
// commands may write only in the workspace roots, the temporary directory
// and the --sandbox-write-dir entries, have no sockets unless
// --sandbox-network, and cannot signal processes outside their own tree.
// The temporary directory is $TMPDIR when set; otherwise a private one
// for this run, exported as TMPDIR to the commands, which cleanup
// removes. When the kernel cannot confine them, ply says so once and the
// shell tool refuses every command, unless allowUnsandboxed
// (--allow-unsandboxed or the user's setting) accepts running them
// unconfined: a sandbox that was asked for must not quietly be absent.
func setupSandbox(o Sandbox, allowUnsandboxed bool, ws *tools.Workspace, shell *tools.Shell, getenv func(string) string, stderr io.Writer) (cleanup func(), err error) {
	cleanup = func() {}
	if !o.Enabled {
		return cleanup, nil
	}
	tmp := getenv("TMPDIR")
	if tmp == "" {
		priv, err := os.MkdirTemp(os.TempDir(), "ply-")
		if err != nil {
			return cleanup, fmt.Errorf("create the sandbox's temporary directory: %w", err)
		}
		cleanup = func() { _ = os.RemoveAll(priv) }
		shell.SetTempDir(priv)
		tmp = priv
	}
	if err := sandboxPolicy(o, allowUnsandboxed, ws, tmp, shell, stderr); err != nil {
		cleanup()
		return func() {}, err
	}
	return cleanup, nil
}

// sandboxPolicy builds --sandbox's policy with tmp writable and gives it
// to the shell, or its refusal when the kernel has no Landlock.
func sandboxPolicy(o Sandbox, allowUnsandboxed bool, ws *tools.Workspace, tmp string, shell *tools.Shell, stderr io.Writer) error {
	writable := append([]string{}, ws.Roots()...)
	extra := append([]string{tmp}, o.WriteDirs...)
	for _, d := range extra {
		abs, err := filepath.Abs(d)
		if err != nil {
			return fmt.Errorf("sandbox directory %q: %w", d, err)
		}
		writable = append(writable, abs)
	}
	abi, err := SandboxAvailable()
	if err != nil {
		if allowUnsandboxed {
			fmt.Fprintf(stderr, "ply: warning: the kernel has no Landlock (%v); running shell commands unsandboxed as --allow-unsandboxed asks\n", err)
			return nil
		}
		fmt.Fprintf(stderr, "ply: the kernel has no Landlock (%v); refusing to run shell commands unsandboxed — pass --allow-unsandboxed to run them anyway\n", err)
		shell.SetRefusal(fmt.Sprintf("ply was asked to sandbox shell commands (--sandbox), but the kernel has no Landlock (%v); the user must rerun ply with --allow-unsandboxed to run commands unconfined", err))
		return nil
	}
	if !o.Network && abi < sandbox.NetworkABI {
		fmt.Fprintf(stderr, "ply: warning: Landlock ABI %d cannot restrict the network (needs %d); sandboxed commands keep network access\n", abi, sandbox.NetworkABI)
	}
	if abi < sandbox.ScopeABI {
		fmt.Fprintf(stderr, "ply: warning: Landlock ABI %d cannot keep sandboxed commands from signalling other processes (needs %d)\n", abi, sandbox.ScopeABI)
	}
	shell.SetSandbox(&sandbox.Policy{WritableDirs: writable, AllowNetwork: o.Network, ScopeSignals: true})
	return nil
}
