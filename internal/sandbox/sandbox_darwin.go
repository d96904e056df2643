package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// On macOS a Policy is enforced by Seatbelt through sandbox-exec (see
// sbpl.go). The profile enforces every part of a Policy: writes, the
// network, and signals to processes outside the sandbox.

// seatbeltMissing is why nothing can be confined when sandbox-exec is
// not there.
func seatbeltMissing() error {
	if _, err := os.Stat(seatbeltExec); err != nil {
		return fmt.Errorf("macOS has no %s to confine commands: %w", seatbeltExec, err)
	}
	return nil
}

// Available reports ScopeABI when sandbox-exec is there: the profile
// enforces what Landlock enforces from that ABI on (writes, network,
// signals), so callers that check the ABI for what is enforced see all
// of it. Otherwise it reports why nothing can be confined.
func Available() (abi int, err error) {
	if err := seatbeltMissing(); err != nil {
		return 0, err
	}
	return ScopeABI, nil
}

// ReadOnlyAvailable reports why ReadOnlyPolicy cannot be enforced here,
// or nil: it needs sandbox-exec.
func ReadOnlyAvailable() error { return seatbeltMissing() }

// Start starts cmd confined by p: it rewrites cmd to run the program
// under sandbox-exec with p's profile, then starts it as cmd.Start does.
// The directory, environment, files and SysProcAttr are kept; the
// program's argv[0] becomes its path.
func Start(cmd *exec.Cmd, p Policy) error {
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	if err := seatbeltMissing(); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	path, err := absProgram(cmd)
	if err != nil {
		return err
	}
	argv, err := seatbeltArgv(p, path, cmd.Args, filepath.EvalSymlinks)
	if err != nil {
		return err
	}
	cmd.Path, cmd.Args = seatbeltExec, argv
	return cmd.Start()
}

// absProgram returns cmd's program as an absolute path.
func absProgram(cmd *exec.Cmd) (string, error) {
	if cmd.Err != nil {
		return "", fmt.Errorf("sandbox: %w", cmd.Err)
	}
	path := cmd.Path
	if !filepath.IsAbs(path) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", fmt.Errorf("sandbox: %w", err)
		}
		path = abs
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	return path, nil
}

// runHelper applies the policy in args by replacing itself with
// sandbox-exec running the command; it returns only on failure.
func runHelper(args []string) error {
	sp, path, argv, err := parseHelperArgs(args)
	if err != nil {
		return err
	}
	if sp.Policy == nil {
		if err := syscall.Exec(path, argv, helperEnviron()); err != nil {
			return fmt.Errorf("exec %s: %w", path, err)
		}
		return nil
	}
	if err := seatbeltMissing(); err != nil {
		return err
	}
	sargv, err := seatbeltArgv(*sp.Policy, path, argv, filepath.EvalSymlinks)
	if err != nil {
		return err
	}
	if err := syscall.Exec(seatbeltExec, sargv, helperEnviron()); err != nil {
		return fmt.Errorf("exec %s: %w", seatbeltExec, err)
	}
	return nil // not reached
}

// There is no guardian on macOS yet: commands do not end with a ply that
// is killed.
type guard struct{ token string }

func (*guard) register(int)            {}
func (*guard) enter(*exec.Cmd)         {}
func startedGuardian() (*guard, error) { return nil, errors.New("no guardian on macOS") }
func runGuardian([]string)             {}
