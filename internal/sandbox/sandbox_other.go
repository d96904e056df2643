//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

var errLinuxOnly = noSandbox(runtime.GOOS)

// Available reports that no sandbox exists on this system.
func Available() (abi int, err error) { return 0, errLinuxOnly }

// runHelper refuses: Wrap succeeds on every system, so that the caller's
// Available check, not the helper, decides, but nothing can be confined
// here.
func runHelper([]string) error { return errLinuxOnly }

// ReadOnlyAvailable reports that no read-only profile exists here.
func ReadOnlyAvailable() error { return errLinuxOnly }

type guard struct{ token string }

func (*guard) register(int)    {}
func (*guard) enter(*exec.Cmd) {}

func startedGuardian() (*guard, error) { return nil, errors.New("no guardian on this system") }
func runGuardian([]string)             {}

// Start refuses: nothing can be confined here.
func Start(*exec.Cmd, Policy) error { return errLinuxOnly }
