package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// On macOS a Policy is enforced by the system's own sandbox (Seatbelt):
// the command runs under /usr/bin/sandbox-exec with a profile in Apple's
// sandbox profile language (SBPL) that this file writes. It is plain Go
// so that it is tested on every system.
//
// The profile text never holds a path. Every directory is passed as a
// parameter (sandbox-exec -D NAME=VALUE) and named in the profile as
// (param "NAME"), so that no quote, backslash, parenthesis or newline in
// a directory's name can change the profile's meaning. Seatbelt matches
// the paths the kernel resolved, so directories are canonicalised first
// (/tmp is /private/tmp on macOS); one that does not exist is left out,
// as on Linux.

// seatbeltExec is the program that applies a profile and runs a command;
// always this path, never one found in $PATH.
const seatbeltExec = "/usr/bin/sandbox-exec"

// seatbeltSpec is what a profile grants beyond running programs.
type seatbeltSpec struct {
	// ReadDirs are the directories, beside systemReadDirs, whose files
	// may be read; nil means every file may be read.
	ReadDirs []string
	// WriteDirs are the directories below which files may be written.
	WriteDirs []string
	// Network allows sockets: outbound and inbound connections, binding,
	// and the system services that resolve names and check certificates.
	Network bool
	// ScopeSignals keeps the command from signalling processes outside
	// its sandbox.
	ScopeSignals bool
	// ReadOnly leaves out terminals and shared memory: only the data
	// sinks can be written beside WriteDirs.
	ReadOnly bool
}

// systemReadDirs are what every command reads when reads are limited:
// programs, libraries, the system's configuration and devices.
var systemReadDirs = []string{
	"/bin", "/sbin", "/usr", "/System", "/Library", "/Applications/Xcode.app",
	"/opt/homebrew", "/opt/local", "/private/etc", "/private/var/db/timezone",
	"/private/var/select", "/dev",
}

// sinkDevices may be written by every command: what is written to them
// cannot be read back.
var sinkDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper"}

// systemServices are the Mach services every command may reach: user and
// group names, notifications of configuration changes.
var systemServices = []string{
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.notification_center",
}

// networkServices are the Mach services a command with network may also
// reach: name resolution, network configuration, certificate trust.
var networkServices = []string{
	"com.apple.dnssd.service",
	"com.apple.SystemConfiguration.configd",
	"com.apple.SystemConfiguration.DNSConfiguration",
	"com.apple.trustd",
	"com.apple.trustd.agent",
}

// seatbeltProfile returns the profile for s and the parameters it names,
// as "NAME=VALUE" for sandbox-exec's -D. The directories of s must be
// absolute and canonical (see canonicalDirs).
func seatbeltProfile(s seatbeltSpec) (profile string, params []string, err error) {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	param := func(prefix string, i int, dir string) (string, error) {
		if !filepath.IsAbs(dir) || strings.ContainsRune(dir, 0) {
			return "", fmt.Errorf("sandbox: directory %q is not an absolute path", dir)
		}
		name := prefix + strconv.Itoa(i)
		params = append(params, name+"="+dir)
		return `(param "` + name + `")`, nil
	}

	if s.ScopeSignals {
		b.WriteString("(allow signal (target same-sandbox))\n")
	} else {
		b.WriteString("(allow signal)\n")
	}
	writeServices(&b, systemServices)

	if s.ReadDirs == nil {
		b.WriteString("(allow file-read*)\n")
	} else {
		b.WriteString("(allow file-read* (literal \"/\")")
		for _, d := range systemReadDirs {
			fmt.Fprintf(&b, "\n  (subpath %q)", d)
		}
		for i, d := range s.ReadDirs {
			p, err := param("READ_", i, d)
			if err != nil {
				return "", nil, err
			}
			b.WriteString("\n  (subpath " + p + ")")
		}
		b.WriteString(")\n")
	}

	b.WriteString("(allow file-write-data")
	for _, d := range sinkDevices {
		fmt.Fprintf(&b, "\n  (literal %q)", d)
	}
	b.WriteString("\n  (regex #\"^/dev/fd/[0-9]+$\") (literal \"/dev/stdout\") (literal \"/dev/stderr\"))\n")
	if len(s.WriteDirs) > 0 {
		b.WriteString("(allow file-write*")
		for i, d := range s.WriteDirs {
			p, err := param("WRITE_", i, d)
			if err != nil {
				return "", nil, err
			}
			b.WriteString("\n  (subpath " + p + ")")
		}
		b.WriteString(")\n")
	}
	if !s.ReadOnly {
		b.WriteString(seatbeltTerminals)
	}
	if s.Network {
		b.WriteString("(allow network-outbound)\n(allow network-inbound)\n(allow network-bind)\n(allow system-socket)\n")
		writeServices(&b, networkServices)
	}
	return b.String(), params, nil
}

func writeServices(b *strings.Builder, names []string) {
	b.WriteString("(allow mach-lookup")
	for _, n := range names {
		fmt.Fprintf(b, "\n  (global-name %q)", n)
	}
	b.WriteString(")\n")
}

// seatbeltBase denies everything, then allows starting programs, looking
// at its own processes and the system's settings, stat(2) of any path
// (resolving a path needs it at every step), and the POSIX semaphores
// that multiprocessing uses.
const seatbeltBase = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow file-read-metadata)
(allow ipc-posix-sem)
`

// seatbeltTerminals lets a command that is not read-only use terminals
// and shared memory, as on Linux.
const seatbeltTerminals = `(allow pseudo-tty)
(allow file-read* file-write* file-ioctl
  (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))
(allow ipc-posix-shm)
`

// canonicalDirs returns dirs resolved by resolve (filepath.EvalSymlinks
// on macOS), made absolute, without duplicates, and without those that
// cannot be resolved: a directory that does not exist is ignored, as on
// Linux.
func canonicalDirs(dirs []string, resolve func(string) (string, error)) ([]string, error) {
	out := []string{}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("sandbox: directory %q is not absolute", d)
		}
		r, err := resolve(d)
		if err != nil {
			continue
		}
		if !filepath.IsAbs(r) {
			return nil, errors.New("sandbox: " + d + " resolves to a relative path")
		}
		if r = filepath.Clean(r); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// seatbeltSpecFor turns p into a spec with its directories canonical.
func seatbeltSpecFor(p Policy, resolve func(string) (string, error)) (seatbeltSpec, error) {
	w, err := canonicalDirs(p.WritableDirs, resolve)
	if err != nil {
		return seatbeltSpec{}, err
	}
	spec := seatbeltSpec{WriteDirs: w, Network: p.AllowNetwork, ScopeSignals: p.ScopeSignals, ReadOnly: p.ReadOnly}
	// UNFINISHED: the workspace profile (ConfineReads without ReadOnly) is
	// generated and unit-tested like the others but has not run on a Mac.
	if p.confinesReads() {
		// Reads are confined as on Linux: the system's directories, what
		// the caller names, what the command may write, and the user's
		// git configuration, which git refuses to run without reading.
		read := slices.Concat(p.ReadableDirs, p.WritableDirs, userGitConfigs())
		if spec.ReadDirs, err = canonicalDirs(read, resolve); err != nil {
			return seatbeltSpec{}, err
		}
	}
	return spec, nil
}

// userGitConfigs returns the paths of the user's own git configuration
// files, which need not exist.
func userGitConfigs() []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		out = append(out, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		out = append(out, filepath.Join(x, "git"))
	}
	return out
}

// seatbeltArgv returns the argument vector that runs the program at path
// with argv (argv[0] is its name) under p: sandbox-exec with the profile
// and its parameters, then the program. sandbox-exec starts the program
// by path, so argv[0] is path there.
func seatbeltArgv(p Policy, path string, argv []string, resolve func(string) (string, error)) ([]string, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("sandbox: program %q is not an absolute path", path)
	}
	spec, err := seatbeltSpecFor(p, resolve)
	if err != nil {
		return nil, err
	}
	profile, params, err := seatbeltProfile(spec)
	if err != nil {
		return nil, err
	}
	out := []string{seatbeltExec, "-p", profile}
	for _, kv := range params {
		out = append(out, "-D", kv)
	}
	out = append(out, "--", path)
	if len(argv) > 1 {
		out = append(out, argv[1:]...)
	}
	return out, nil
}
