package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/tools"
)

// listSessions prints the sessions of the workspace (`ply sessions`).
func listSessions(cfg *config, root string, out io.Writer) error {
	list, err := session.List(cfg.home, root)
	if err != nil {
		return fmt.Errorf("listing sessions: %w", err)
	}
	if len(list) == 0 {
		fmt.Fprintln(out, "No sessions for this project yet.")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLAST ACTIVE\tTURNS\tNAME\tFIRST PROMPT")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.Modified.Local().Format(time.DateTime), s.Turns, cmp.Or(s.Title, "-"), s.FirstPrompt)
	}
	return tw.Flush()
}

// pruneSessions removes the workspace's sessions last active more than age
// ago, with their directories (`ply sessions --prune AGE`).
func pruneSessions(cfg *config, root string, age time.Duration, out io.Writer) error {
	removed, err := session.Prune(cfg.home, root, time.Now().Add(-age))
	for _, s := range removed {
		fmt.Fprintf(out, "removed %s (last active %s)\n", s.ID, s.Modified.Local().Format(time.DateTime))
	}
	fmt.Fprintf(out, "%d sessions removed.\n", len(removed))
	if err != nil {
		return fmt.Errorf("pruning sessions: %w", err)
	}
	return nil
}

// sessionsCommand lists the project's saved sessions, or with --prune AGE
// removes those older than AGE.
func sessionsCommand(_ context.Context, args []string, sio IO) int {
	var prune time.Duration
	switch {
	case len(args) == 0:
	case len(args) == 2 && args[0] == "--prune", len(args) == 1 && strings.HasPrefix(args[0], "--prune="):
		age := strings.TrimPrefix(args[len(args)-1], "--prune=")
		d, err := session.ParseAge(age)
		if err != nil {
			return fail(sio, exitcode.Input, "ply sessions --prune: "+err.Error())
		}
		prune = d
	default:
		return fail(sio, exitcode.Input, "usage: ply sessions [--prune OLDER_THAN]  (OLDER_THAN: 30d, 12h, ...)")
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	c := &config{home: home, workspace: workspace}
	ws, err := tools.NewWorkspace(c.workspace)
	if err != nil {
		return fail(sio, exitcode.Input, err.Error())
	}
	if prune > 0 {
		if err := pruneSessions(c, ws.Root(), prune, sio.Stdout); err != nil {
			return fail(sio, exitcode.Error, err.Error())
		}
		return 0
	}
	if err := listSessions(c, ws.Root(), sio.Stdout); err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	return 0
}
