package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/trust"
	"github.com/plyhq/ply/internal/tui"
)

// folderTrust is the run's decision about its workspace: whether the
// project's own configuration (.ply/settings.json, .ply/agents) is
// loaded, and if not, what that leaves out.
type folderTrust struct {
	trusted bool
	// list is the user's trusted folders; nil when ply has no home.
	list *trust.List
	// ignored describes the project configuration left out ("" when
	// the folder is trusted or has none).
	ignored string
}

// checkTrust decides whether workspace is trusted: by the flag for this
// run, or by the user's list. A list that does not parse trusts nothing
// and is reported on stderr.
func checkTrust(home, workspace string, flag bool, stderr io.Writer) folderTrust {
	ft := folderTrust{trusted: flag}
	if home != "" {
		l, err := trust.Load(filepath.Join(home, trust.FileName))
		if err != nil {
			fmt.Fprintf(stderr, "ply: %v; no folder is trusted until it is fixed\n", err)
		}
		ft.list = l
		if _, ok := l.Trusted(workspace); ok && err == nil {
			ft.trusted = true
		}
	}
	if !ft.trusted && !isHome(workspace, home) {
		ft.ignored = core.IgnoredConfig(workspace)
	}
	return ft
}

// isHome reports whether workspace's .ply is ply's home itself (ply run
// in the home directory): its files are the user's, loaded as such.
func isHome(workspace, home string) bool {
	if home == "" {
		return false
	}
	a, err1 := trust.Canonical(filepath.Join(workspace, ".ply"))
	b, err2 := trust.Canonical(home)
	return err1 == nil && err2 == nil && a == b
}

// untrustedNotice is the one line that says what an untrusted folder's
// run left out and how to trust the folder.
func untrustedNotice(ignored string) string { return tui.NotTrustedNotice(ignored) }

// trustAsker asks the user whether to trust the workspace (the TUI's
// start-up question).
type trustAsker func(ctx context.Context, q tui.TrustQuestion) (tui.TrustAnswer, error)

// settleTrust runs before an interactive session: when the workspace is
// untrusted and has project configuration, it asks once. Trusting the
// folder (or its parent) is saved and the settings are loaded again with
// the project's; "not now" leaves the notice on stderr.
func settleTrust(ctx context.Context, c *config, sio IO, ask trustAsker) (int, error) {
	if c.trust.trusted || c.trust.ignored == "" {
		return 0, nil
	}
	q := tui.TrustQuestion{Dir: c.workspace, Parent: filepath.Dir(c.workspace), Ignored: c.trust.ignored}
	ans, err := ask(ctx, q)
	if err != nil {
		return exitcode.Error, fmt.Errorf("asking whether to trust this folder: %w", err)
	}
	dir := ""
	switch ans {
	case tui.TrustFolder:
		dir = q.Dir
	case tui.TrustParent:
		dir = q.Parent
	case tui.TrustQuit:
		return exitcode.Cancelled, errors.New("cancelled")
	}
	if dir == "" {
		c.startNotice = untrustedNotice(c.trust.ignored)
		return 0, nil
	}
	c.startNotice = "Trusted " + dir + ": loaded " + c.trust.ignored + " (ply trust --remove " + dir + " undoes it)"
	// Without a home, or with a list that does not parse, there is
	// nothing to save to: the folder is trusted for this run.
	if l := c.trust.list; l == nil {
		c.startNotice = "Trusted " + dir + " for this run only: there is no PLY_HOME to save it in"
	} else if err := trust.Edit(l.Path(), func(l *trust.List) error {
		_, _, err := l.Add(dir, time.Now())
		return err
	}); err != nil {
		c.startNotice = "Trusted " + dir + " for this run only: " + err.Error()
	}
	c.trust.trusted, c.trust.ignored = true, ""
	if code, err := loadSettings(c, c.opts, sio.Getenv); err != nil {
		return code, err
	}
	// The project may name another provider and key: what child
	// processes may see and what ply must never print follow it.
	if err := setupSecrets(c, os.Environ(), sio.Stderr); err != nil {
		return exitcode.Config, err
	}
	return 0, nil
}

// trustCommand is `ply trust [--parent] [DIR]`, `ply trust --list` and
// `ply trust --remove DIR`.
func trustCommand(_ context.Context, args []string, sio IO) int {
	const use = "usage: ply trust [--parent] [DIR] | ply trust --list | ply trust --remove DIR"
	var list, remove, parent bool
	var dirs []string
	for _, a := range args {
		switch a {
		case "--list":
			list = true
		case "--remove":
			remove = true
		case "--parent":
			parent = true
		case "-h", "--help":
			fmt.Fprint(sio.Stdout, commandHelp(lookup(commands(), "trust")))
			return 0
		default:
			if strings.HasPrefix(a, "-") {
				return fail(sio, exitcode.Input, fmt.Sprintf("ply trust: unknown flag %s (%s)", a, use))
			}
			dirs = append(dirs, a)
		}
	}
	if len(dirs) > 1 || list && (remove || parent || len(dirs) > 0) || remove && (parent || len(dirs) == 0) {
		return fail(sio, exitcode.Input, use)
	}
	home, cwd, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	path := filepath.Join(home, trust.FileName)
	l, err := trust.Load(path)
	if err != nil {
		// Never overwrite a file the user may want to repair by hand.
		return fail(sio, exitcode.Config, err.Error()+"; fix or delete it first")
	}
	if list {
		for _, f := range l.Folders() {
			fmt.Fprintln(sio.Stdout, f.Path)
		}
		return 0
	}
	dir := cwd
	if len(dirs) == 1 {
		dir = dirs[0]
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
	}
	if remove {
		return untrustCommand(path, dir, sio)
	}
	if parent {
		canon, err := trust.Canonical(dir)
		if err != nil {
			return fail(sio, exitcode.Input, err.Error())
		}
		dir = filepath.Dir(canon)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fail(sio, exitcode.Input, fmt.Sprintf("ply trust: %s is not a directory", dir))
	}
	var canon string
	err = trust.Edit(path, func(l *trust.List) error {
		var added bool
		var err error
		if canon, added, err = l.Add(dir, time.Now()); err == nil && !added {
			return errUnchanged
		}
		return err
	})
	switch {
	case errors.Is(err, errUnchanged):
		fmt.Fprintf(sio.Stdout, "%s is already trusted\n", canon)
	case err != nil:
		return editFailed(sio, err)
	default:
		fmt.Fprintf(sio.Stdout, "trusted %s and its subfolders: ply now loads their .ply/settings.json and .ply/agents\n", canon)
	}
	return 0
}

// errUnchanged ends an edit of the list that would change nothing.
var errUnchanged = errors.New("unchanged")

func untrustCommand(path, dir string, sio IO) int {
	var canon, through string
	err := trust.Edit(path, func(l *trust.List) error {
		var removed bool
		var err error
		if canon, removed, err = l.Remove(dir); err == nil && !removed {
			return errUnchanged
		}
		if f, ok := l.Trusted(canon); ok {
			through = f.Path
		}
		return err
	})
	switch {
	case errors.Is(err, errUnchanged):
		return fail(sio, exitcode.Input, fmt.Sprintf("ply trust: %s is not in the list (see ply trust --list)", canon))
	case err != nil:
		return editFailed(sio, err)
	}
	fmt.Fprintf(sio.Stdout, "%s is no longer trusted\n", canon)
	if through != "" {
		fmt.Fprintf(sio.Stdout, "note: it is still trusted through %s\n", through)
	}
	return 0
}

// editFailed reports a failed change of the list; a file that does not
// parse is left for the user to repair.
func editFailed(sio IO, err error) int {
	var se *settings.SyntaxError
	if errors.As(err, &se) {
		return fail(sio, exitcode.Config, err.Error()+"; fix or delete it first")
	}
	return fail(sio, exitcode.Error, err.Error())
}

// askTrust asks on the terminal, before the session's UI starts.
func askTrust(sio IO) trustAsker {
	return func(ctx context.Context, q tui.TrustQuestion) (tui.TrustAnswer, error) {
		q.NoColor = sio.Getenv("NO_COLOR") != ""
		return tui.AskTrust(ctx, q, sio.Stdin, sio.Stdout)
	}
}
