package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Available reports the kernel's Landlock ABI version, or why Landlock
// cannot be used: not built into the kernel, or disabled at boot.
func Available() (abi int, err error) {
	v, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, fmt.Errorf("the kernel was built without Landlock: %w", err)
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, fmt.Errorf("the kernel has Landlock disabled (add landlock to the lsm= boot parameter): %w", err)
	case err != nil:
		return 0, fmt.Errorf("probe Landlock: %w", err)
	case v < 1:
		return 0, fmt.Errorf("the kernel reports Landlock ABI %d", v)
	}
	return v, nil
}

// devFiles are device files that ordinary commands open for writing
// (redirections to /dev/null, reading randomness with O_RDWR, terminals);
// the device's own permissions still apply.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// sinkFiles are the device files a read-only command may open for
// writing: writes to them change nothing anyone can read back.
var sinkFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// devDirs are device directories commands create files in: shared memory
// for semaphores and multiprocessing, pseudo-terminals.
var devDirs = []string{"/dev/shm", "/dev/pts"}

// runHelper confines the current thread by the policy in args and
// executes the command there; it returns only on failure.
func runHelper(args []string) error {
	sp, path, argv, err := parseHelperArgs(args)
	if err != nil {
		return err
	}
	if sp.Policy != nil {
		if err := confine(*sp.Policy, helperEnviron()); err != nil {
			return err
		}
	}
	if err := syscall.Exec(path, argv, helperEnviron()); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil // not reached
}

// confine restricts the calling thread, which it locks, by p for a
// command whose environment is env: no_new_privs, no capabilities,
// Landlock, then the system call filter.
func confine(p Policy, env []string) error {
	abi, err := Available()
	if err != nil {
		// Never run the command unconfined: the caller asked for a
		// sandbox and must decide, not the helper.
		return err
	}
	cfg, rules := ruleset(p, abi)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("build the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("the Landlock ruleset is empty; refusing to run unconfined")
	}
	defer unix.Close(fd)
	// The restriction belongs to this thread only; execve from the same
	// thread carries it into the command, and the other Go threads die
	// with the exec. The thread is never unlocked.
	runtime.LockOSThread()
	// no_new_privs is required to restrict oneself without CAP_SYS_ADMIN;
	// it also keeps setuid programs from shedding the sandbox.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if p.confinesReads() {
		if err := restrictReads(p, env); err != nil {
			return err
		}
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	spec := filterFor(p)
	if spec.network && !spec.readOnly && auditArch() == 0 {
		// With the network allowed the filter denies nothing Landlock
		// relies on; where ply has none, the command runs without it.
		return nil
	}
	return installFilter(spec)
}

// ruleset turns p into a Landlock configuration for a kernel with the
// given ABI and the rules that grant what p allows; for a ReadOnly p,
// what it allows but reading, which the read layer grants; the same for
// a p that confines reads, which keeps the terminals and /dev/shm.
func ruleset(p Policy, abi int) (landlock.Config, []landlock.Rule) {
	// BestEffort drops the rights the running kernel does not know;
	// runHelper has already refused a kernel with no Landlock at all,
	// where best effort would enforce nothing.
	cfg := landlock.V11.BestEffort()
	if p.AllowNetwork {
		cfg.HandledAccessNet = 0
		// Pathname UNIX sockets (ABI 9) reach local daemons much as TCP
		// does: allowed together with the network.
		cfg.HandledAccessFS &^= ll.AccessFSResolveUnix
		cfg.Scoped = 0
	} else {
		// Abstract UNIX sockets are a way to talk to daemons outside
		// the sandbox (the socket filter denies sockets too, but
		// scoping costs nothing).
		cfg.Scoped = ll.ScopeAbstractUnixSocket
	}
	if p.ScopeSignals {
		cfg.Scoped |= ll.ScopeSignal
	}
	writable := landlock.RWDirs(p.WritableDirs...).IgnoreIfMissing()
	if abi >= 2 {
		// Without refer, moving a file between two directories of the
		// workspace fails with EXDEV. ABI 1 cannot grant it, and asking
		// would make best effort enforce nothing.
		writable = writable.WithRefer()
	}
	devices := []landlock.Rule{
		landlock.RWFiles(devFiles...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs(devDirs...).IgnoreIfMissing(),
	}
	switch {
	case p.ReadOnly:
		// The write layer: reads are the read layer's (readlayer_linux.go).
		cfg.HandledAccessFS &^= readRights
		return cfg, []landlock.Rule{writable, landlock.RWFiles(sinkFiles...).IgnoreIfMissing()}
	case p.ConfineReads:
		cfg.HandledAccessFS &^= readRights
		return cfg, append([]landlock.Rule{writable}, devices...)
	}
	return cfg, append([]landlock.Rule{landlock.RODirs("/"), writable}, devices...)
}

// ReadOnlyAvailable reports why ReadOnlyPolicy cannot be enforced here,
// or nil: it needs Landlock and the system call filter for this
// architecture.
func ReadOnlyAvailable() error {
	if _, err := Available(); err != nil {
		return err
	}
	if auditArch() == 0 {
		return errNoSocketFilter
	}
	return nil
}

// Start starts cmd confined by p without re-executing anything: a new
// goroutine locks itself to its OS thread, confines that thread alone
// (capabilities, Landlock, no_new_privs and the system call filter are
// per thread), starts cmd from it, so that the command inherits the
// confinement, and ends without unlocking, which makes the Go runtime end the thread too. The
// runtime never starts threads from a locked one, and the rest of the
// process is never confined. cmd is started as by cmd.Start.
func Start(cmd *exec.Cmd, p Policy) error {
	if err := p.check(); err != nil {
		return err
	}
	// The read-only filter reports clone3 missing, because its flags lie
	// in memory the filter cannot read; starting straight into the
	// guard's cgroup needs clone3. Such a command is moved into the
	// cgroup as soon as it has started instead.
	var cgroupFD int
	moveAfter := p.ReadOnly && cmd.SysProcAttr != nil && cmd.SysProcAttr.UseCgroupFD
	if moveAfter {
		cgroupFD = cmd.SysProcAttr.CgroupFD
		cmd.SysProcAttr.UseCgroupFD = false
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread is discarded
		env := cmd.Env
		if env == nil {
			env = os.Environ()
		}
		if err := confine(p, env); err != nil {
			errc <- fmt.Errorf("sandbox: %w", err)
			return
		}
		errc <- cmd.Start()
	}()
	if err := <-errc; err != nil {
		return err
	}
	if moveAfter {
		moveIntoCgroup(cgroupFD, cmd.Process.Pid)
	}
	return nil
}
