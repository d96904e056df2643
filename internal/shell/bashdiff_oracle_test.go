package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plyhq/ply/internal/sandbox/sandboxtest"

	"github.com/plyhq/ply/internal/sandbox"
)

// bashPath is the shell the oracle runs: the bash ply's shell tool runs.
const bashPath = "/usr/bin/bash"

// stubNames are the programs the generator names. Any program name is
// observed, as no program exists on the oracle's PATH; these are not
// bash builtins or keywords, which run inside bash unobserved.
var stubNames = []string{
	"cat", "rm", "ls", "grep", "head", "tail", "wc", "sort", "touch", "mkdir",
	"cp", "mv", "chmod", "sed", "tr", "cut", "uniq", "date", "env", "xargs",
	"find", "git", "curl", "ssh",
}

// recorder is bash's command_not_found_handle, handed to bash in the
// environment as an exported function: bash calls it, in a child it has
// forked for the program, with the argv of every program it would run
// and finds nowhere on PATH. It appends one record: fields
// "length:bytes" joined by commas, argv[0] first, ended by a newline.
// It succeeds, so that && lists go on. Lengths count bytes (LC_ALL=C),
// so arguments may hold anything, newlines included. One printf makes
// one write, which O_APPEND keeps whole.
const recorder = `() { LC_ALL=C; local r=${#1}:$1 a; shift; for a in "$@"; do r+=,${#a}:$a; done; ` +
	`printf '%s\n' "$r" >>"$BASHDIFF_LOG"; }`

// errRefused reports a line the oracle will not run: it cannot be passed
// to bash -c, or, without the sandbox, it could reach outside the
// oracle's directory.
var errRefused = errors.New("bash oracle: line refused")

// bashOracle runs command lines with real bash, non-interactively, in an
// environment that holds only an empty PATH, the recorder and its log's
// name, in a private working directory, under a timeout, and confined by
// the sandbox where the kernel allows it. What the recorder wrote is
// what bash actually ran.
type bashOracle struct {
	dir      string // the oracle's own directory, the only writable one
	path     string // PATH: an empty directory
	confined bool   // the sandbox confines bash to dir
	timeout  time.Duration
	n        atomic.Int64 // runs, for unique log and work directory names
}

// newBashOracle prepares an oracle under dir, which it owns.
func newBashOracle(dir string) (*bashOracle, error) {
	if _, err := os.Stat(bashPath); err != nil {
		return nil, fmt.Errorf("bash oracle: finding bash: %w", err)
	}
	o := &bashOracle{dir: dir, path: filepath.Join(dir, "bin"), timeout: 5 * time.Second}
	if err := os.MkdirAll(o.path, 0o755); err != nil {
		return nil, fmt.Errorf("bash oracle: creating the PATH directory: %w", err)
	}
	o.confined = sandbox.ReadOnlyAvailable() == nil
	return o, nil
}

// unconfinedRisks are the pieces of a line that, when the sandbox is not
// available, could name a directory outside the oracle's: a slash, the
// home directory, a parent, the working directory's absolute name, a
// byte or character written as an escape, or a builtin that changes
// directory, names a program by path or builds strings.
var unconfinedRisks = []string{
	"/", "~", "..", "PWD", "HOME", "$'", "$\"", "\\x", "\\0", "\\u", "\\U",
	"cd", "pushd", "popd", "exec", "enable", "builtin", "command", "printf", "eval",
	"source", ". ", "hash", "BASH", "declare", "typeset", "export", "PATH",
}

// refuse reports why line is not run.
func (o *bashOracle) refuse(line string) error {
	if strings.IndexByte(line, 0) >= 0 {
		return fmt.Errorf("%w: a NUL byte cannot be passed to bash -c", errRefused)
	}
	if strings.Contains(line, "/") {
		return fmt.Errorf("%w: it names a path", errRefused)
	}
	if strings.Contains(line, "kill") {
		// kill -9 -1 reaches every process the user may signal where
		// the sandbox cannot scope signals.
		return fmt.Errorf("%w: it may signal other processes", errRefused)
	}
	if !o.confined {
		for _, r := range unconfinedRisks {
			if strings.Contains(line, r) {
				return fmt.Errorf("%w: %q without the sandbox", errRefused, r)
			}
		}
	}
	return nil
}

// run runs line as ply's shell tool does (bash -c line) and returns the
// argv of every stub bash started, in the order they recorded.
func (o *bashOracle) run(ctx context.Context, line string) ([][]string, error) {
	if err := o.refuse(line); err != nil {
		return nil, err
	}
	i := o.n.Add(1)
	work := filepath.Join(o.dir, "w"+strconv.FormatInt(i, 10))
	if err := os.Mkdir(work, 0o755); err != nil {
		return nil, fmt.Errorf("bash oracle: creating a working directory: %w", err)
	}
	defer os.RemoveAll(work)
	logPath := filepath.Join(o.dir, "log"+strconv.FormatInt(i, 10))
	defer os.Remove(logPath)

	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bashPath, "-c", line)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + o.path, "BASHDIFF_LOG=" + logPath,
		"BASH_FUNC_command_not_found_handle%%=" + recorder}
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = nil, nil // the null device: nothing to cap
	sandboxtest.NewGroup(cmd)
	// The whole group goes, background jobs included, on timeout and
	// once bash has ended: nothing outlives the run.
	cmd.Cancel = func() error { return sandboxtest.KillGroup(cmd.Process.Pid) }
	var err error
	if o.confined {
		err = sandbox.Start(cmd, sandbox.ReadOnlyPolicy(o.dir))
	} else {
		err = cmd.Start()
	}
	if err != nil {
		return nil, fmt.Errorf("bash oracle: starting bash: %w", err)
	}
	werr := cmd.Wait()
	_ = sandboxtest.KillGroup(cmd.Process.Pid)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("bash oracle: %q ran too long: %w", line, ctx.Err())
	}
	var exit *exec.ExitError
	if werr != nil && !errors.As(werr, &exit) {
		return nil, fmt.Errorf("bash oracle: running bash: %w", werr)
	}
	data, err := readCapped(logPath, 1<<20)
	if err != nil {
		return nil, err
	}
	return parseStubLog(data), nil
}

// readCapped reads at most max bytes of a log; a missing log means no
// stub ran.
func readCapped(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bash oracle: opening the stub log: %w", err)
	}
	defer f.Close()
	buf := make([]byte, max)
	n, err := f.Read(buf)
	if n == 0 && err != nil {
		return nil, nil
	}
	return buf[:n], nil
}

// parseStubLog decodes the stubs' records. A record cut short (a stub
// killed mid-write, the size cap) ends the log.
func parseStubLog(data []byte) [][]string {
	var out [][]string
	var argv []string
	for len(data) > 0 {
		colon := bytes.IndexByte(data, ':')
		if colon < 0 {
			break
		}
		n, err := strconv.Atoi(string(data[:colon]))
		if err != nil || n < 0 || colon+1+n >= len(data) {
			break
		}
		argv = append(argv, string(data[colon+1:colon+1+n]))
		sep := data[colon+1+n]
		data = data[colon+2+n:]
		switch sep {
		case ',':
		case '\n':
			out = append(out, argv)
			argv = nil
		default:
			return out
		}
	}
	return out
}
