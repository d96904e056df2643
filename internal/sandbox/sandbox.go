// Package sandbox confines shell commands on Linux with Landlock and a
// seccomp filter: a command may write only below the directories a Policy
// names and, unless the policy allows the network, may not create sockets
// (Landlock denies TCP bind and connect as well, where the ABI has it).
// A policy can also scope signals to the sandbox, and ReadOnlyPolicy is
// the profile for commands that run without anyone's approval because
// they were judged to only read.
//
// Every confined command also loses its capabilities, even started by
// root, and runs under a seccomp filter that denies what Landlock does
// not cover: changing the machine (reboot, clock, modules, mounts),
// System V IPC, keyrings, extended attributes, other processes' limits
// and, for read-only commands, changing files' mode, owner and times.
// The filter is ply's own BPF program (see seccomp_linux.go for why no
// library).
//
// The package owns the mechanism only. Which directories are writable,
// whether the network is allowed and what to do when the kernel cannot
// confine anything are the caller's decisions.
//
// Landlock, no_new_privs and a seccomp filter restrict the calling thread
// and everything it later starts, not the whole of a multithreaded Go
// program. Start uses that: it confines a thread of its own, starts the
// command from it and lets the thread end with its goroutine, so a
// confined command costs no more to start than a plain one. Wrap is the
// other way, kept for callers that cannot start the command themselves:
// it rewrites a command to start the current executable as a small
// helper, which restricts itself and then replaces itself with the real
// command, at the price of starting this executable once more.
//
// The package also ties commands to ply's life: Guard and Track hand them
// to a guardian process that ends them when ply ends, however it ends.
// Programs using this package must call MaybeRunHelper at the very start
// of main (tests: of TestMain), which runs the helper or the guardian.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Policy says what a confined command may do beyond reading and executing
// files, which it may do anywhere unless the policy is ReadOnly or
// ConfineReads.
type Policy struct {
	// WritableDirs are absolute directories under which the command may
	// create, modify, rename and delete files. Directories that do not
	// exist when the command starts are ignored.
	WritableDirs []string `json:"writable_dirs"`
	// AllowNetwork lets the command bind and connect sockets. When false
	// and the kernel's Landlock ABI is at least NetworkABI, TCP bind and
	// connect are denied; older kernels cannot restrict the network.
	AllowNetwork bool `json:"allow_network"`
	// ScopeSignals keeps the command from signalling any process outside
	// the sandbox it runs in (Landlock ABI 6 and later); ply itself can
	// still signal it. Commands started by other confined commands are
	// outside too, so a command cannot stop an earlier command's
	// background job.
	ScopeSignals bool `json:"scope_signals"`
	// ReadOnly leaves out the device files and directories that ordinary
	// commands write (terminals, /dev/shm, /dev/pts): only the data sinks
	// /dev/null, /dev/zero and /dev/full, the random devices and
	// WritableDirs can be written. It also confines reads (see
	// ReadOnlyPolicy) and denies changing any file's metadata.
	ReadOnly bool `json:"read_only"`
	// ConfineReads confines reads and execution as ReadOnly does (see
	// ReadOnlyPolicy) without its other limits: the command may still
	// write WritableDirs, the terminals and /dev/shm, and change the
	// metadata of files it owns. ReadOnly implies it.
	ConfineReads bool `json:"confine_reads,omitempty"`
	// ReadableDirs are absolute paths a command whose reads are confined
	// may also read and execute, besides the system's and WritableDirs:
	// the workspace, folders made readable to the read tools. None means
	// none: reads stay confined.
	ReadableDirs []string `json:"readable_dirs,omitempty"`
}

// confinesReads reports whether p limits what the command may read.
func (p Policy) confinesReads() bool { return p.ReadOnly || p.ConfineReads }

// WorkspacePolicy is the profile of a command that runs without anyone's
// approval in a mode where the kernel, not a judgement of the command,
// keeps the user safe: it may write below writable (the workspace roots,
// a private temporary directory, caches that belong to the sandbox), read
// and execute what a ReadOnlyPolicy command may plus readable and
// writable, has no network and no sockets but stream socket pairs, and
// cannot signal processes outside its own tree. Unlike ReadOnlyPolicy it
// may change the mode and times of files it owns (a build marks its
// output executable).
func WorkspacePolicy(writable, readable []string) Policy {
	return Policy{
		WritableDirs: slices.Clone(writable),
		ReadableDirs: slices.Clone(readable),
		ScopeSignals: true,
		ConfineReads: true,
	}
}

// ReadOnlyPolicy is the profile of a command that runs without anyone's
// approval because it was judged to only read: it may write only in tmp
// (a private temporary directory the caller creates, empties and
// removes; "" for none) and the data sinks, change no file's mode, owner,
// times or attributes, has no network and no sockets at all, and cannot
// signal processes outside its own tree. It may read and execute only the
// system's programs and libraries (/usr, /bin, /lib, /opt and the like),
// what every user may read in /etc, /proc and a little of /sys, the
// directories of its PATH (but not the home directory itself), the
// user's git configuration files, tmp, and the ReadableDirs the caller
// adds: not the rest of the home directory.
func ReadOnlyPolicy(tmp string) Policy {
	p := Policy{ScopeSignals: true, ReadOnly: true}
	if tmp != "" {
		p.WritableDirs = []string{tmp}
	}
	return p
}

// check refuses relative directories: they would be resolved against
// whatever directory the confining thread or helper runs in.
func (p Policy) check() error {
	for _, d := range p.WritableDirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("sandbox: writable directory %q is not absolute", d)
		}
	}
	for _, d := range p.ReadableDirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("sandbox: readable directory %q is not absolute", d)
		}
	}
	return nil
}

// NetworkABI is the first Landlock ABI version that can restrict TCP.
const NetworkABI = 4

// ScopeABI is the first Landlock ABI version that can scope signals and
// abstract Unix sockets to the sandbox.
const ScopeABI = 6

const (
	// helperArg is the first argument that turns the executable into the
	// helper. It is not a flag any real command line would carry.
	helperArg = "__ply-sandbox-exec"
	// helperEnv must also be set, so that typing helperArg by hand or
	// passing it by accident does nothing surprising. The helper removes
	// it before starting the command.
	helperEnv = "PLY_SANDBOX_HELPER=1"
	// helperFailed is the helper's exit code when it cannot confine or
	// start the command; like a shell's 126, it means nothing ran.
	helperFailed = 126
	// guardianArg turns the executable into the guardian (see Guard).
	guardianArg = "__ply-guardian"
)

// Wrap rewrites cmd, which exec.Command prepared but which has not
// started, so that it runs confined by p: the current executable starts
// first, applies p and then executes the original program with the
// original arguments. Everything else about cmd (directory, environment,
// files, SysProcAttr) is kept, and the process ID stays the command's, as
// the helper replaces itself.
//
// Wrap fails when p is invalid or the executable cannot be found; it does
// not probe the kernel (see Available).
func Wrap(cmd *exec.Cmd, p Policy) error { return wrap(cmd, spec{Policy: &p}) }

// Guard prepares cmd, which has not started, to end with this process,
// however this process ends. Call Track with its process ID once it has
// started.
//
// A guardian process, started with the first guarded command, watches
// this one. When it ends, the guardian sends SIGTERM, then SIGKILL a
// second later, to every process group Track registered that is still
// there, and to every process whose environment carries this process's
// guard token (PLY_GUARD, which Guard adds to cmd's environment): that
// reaches what the command started, even what left its group with setsid
// or nohup. What leaves the group and also starts with a cleared or
// overwritten environment escapes. Where no guardian can run, Guard does
// nothing and says so once in the log.
func Guard(cmd *exec.Cmd) {
	g, err := startedGuardian()
	if err != nil {
		guardUnavailable.Do(func() {
			slog.Warn("shell commands will not end with ply if it is killed: no guardian", "err", err)
		})
		return
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = withGuardToken(env, g.token)
}

// Track registers the process group led by pid (a command Guard prepared,
// which leads its own group) with the guardian. It does nothing when
// there is no guardian.
func Track(pid int) {
	if g, err := startedGuardian(); err == nil {
		g.register(pid)
	}
}

var guardUnavailable sync.Once

// guardEnv is the variable that carries guard tokens: a colon-separated
// list, so that the commands of a ply that a command started carry the
// tokens of both.
const guardEnv = "PLY_GUARD"

// withGuardToken returns env with token added to guardEnv.
func withGuardToken(env []string, token string) []string {
	out := make([]string, 0, len(env)+1)
	val := token
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, guardEnv+"="); ok {
			if v != "" {
				val = v + ":" + token
			}
			continue
		}
		out = append(out, e)
	}
	return append(out, guardEnv+"="+val)
}

// hasGuardToken reports whether environ, a /proc/PID/environ's content,
// carries token.
func hasGuardToken(environ []byte, token string) bool {
	for e := range strings.SplitSeq(string(environ), "\x00") {
		if v, ok := strings.CutPrefix(e, guardEnv+"="); ok {
			for t := range strings.SplitSeq(v, ":") {
				if t == token {
					return true
				}
			}
		}
	}
	return false
}

// spec is what the helper is told: the policy to apply.
type spec struct {
	Policy *Policy `json:"policy,omitempty"`
}

func wrap(cmd *exec.Cmd, sp spec) error {
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	if cmd.Err != nil {
		return fmt.Errorf("sandbox: %w", cmd.Err)
	}
	if sp.Policy != nil {
		if err := sp.Policy.check(); err != nil {
			return err
		}
	}
	enc, err := json.Marshal(sp)
	if err != nil {
		return fmt.Errorf("sandbox: encode the policy: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("sandbox: find the helper executable: %w", err)
	}
	path := cmd.Path
	if !filepath.IsAbs(path) {
		// The helper runs in cmd.Dir; a relative path found by LookPath
		// must not be resolved against it.
		if path, err = filepath.Abs(path); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	if _, err := os.Stat(path); err != nil {
		// Fail here, as starting it directly would, not in the helper.
		return fmt.Errorf("sandbox: %w", err)
	}
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	args := append([]string{self, helperArg, string(enc), "--", path}, argv...)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Path, cmd.Args = self, args
	cmd.Env = append(env[:len(env):len(env)], helperEnv)
	return nil
}

// MaybeRunHelper runs the helper or the guardian and does not return when
// the process was started as one; otherwise it returns at once. Call it
// first in main, before anything else starts threads that could act
// unconfined.
func MaybeRunHelper() {
	if len(os.Args) < 2 || !markerSet() {
		return
	}
	switch os.Args[1] {
	case helperArg:
		err := runHelper(os.Args[2:])
		// runHelper returns only when it failed: nothing ran.
		fmt.Fprintf(os.Stderr, "ply sandbox: %v\n", err)
		os.Exit(helperFailed)
	case guardianArg:
		runGuardian(os.Args[2:])
		os.Exit(0)
	}
}

func markerSet() bool {
	k, v, _ := strings.Cut(helperEnv, "=")
	return os.Getenv(k) == v
}

// parseHelperArgs splits the helper's arguments, "<spec> -- path argv0
// args...", into the spec, the program's path and its argv.
func parseHelperArgs(args []string) (sp spec, path string, argv []string, err error) {
	if len(args) < 4 || args[1] != "--" {
		return sp, "", nil, errors.New("usage: " + helperArg + " <spec-json> -- <path> <argv0> [args...]")
	}
	if err := json.Unmarshal([]byte(args[0]), &sp); err != nil {
		return sp, "", nil, fmt.Errorf("decode the policy: %w", err)
	}
	return sp, args[2], args[3:], nil
}

// helperEnviron is the command's environment: the helper's without the
// marker, so that a ply the command starts behaves normally.
func helperEnviron() []string {
	env := os.Environ()
	out := env[:0]
	for _, e := range env {
		if e != helperEnv {
			out = append(out, e)
		}
	}
	return out
}
