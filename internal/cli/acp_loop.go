package cli

import (
	"context"
	"fmt"

	"github.com/plyhq/ply/internal/acp"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/schedule"
)

// acpLoop is /loop for an ACP client: "/loop INTERVAL PROMPT" sends PROMPT
// every INTERVAL as a Cron round, "/loop" lists the schedules, "/loop stop
// ID" stops one. A firing goes as any inbox round in ACP (acp/inbox.go):
// after the running prompt's round, or, when no prompt runs, before the
// next prompt's text (ACP gives the agent no turn of its own).
func acpLoop(c *core.Session) acp.Command {
	return acp.Command{
		Name:        "loop",
		Description: "Send a prompt again every interval (30s, 5m, 2h, 1d); alone, list the schedules; stop ID stops one",
		Hint:        "INTERVAL PROMPT | stop ID",
		Run:         func(_ context.Context, args string) (string, error) { return loopCommand(c.Schedules(), args) },
	}
}

// loopCommand runs /loop's arguments against the session's schedules.
func loopCommand(s *schedule.Schedules, args string) (string, error) {
	cmd, err := schedule.ParseLoop(args)
	switch {
	case err != nil:
		return "", err
	case cmd.Stop != "":
		if !s.Delete(cmd.Stop) {
			return "", fmt.Errorf("no schedule %q (/loop lists them)", cmd.Stop)
		}
		return "stopped " + cmd.Stop, nil
	case cmd.Every == 0:
		return schedule.ListText(s.List()), nil
	}
	j, err := s.Every(cmd.Every, cmd.Prompt, schedule.KindLoop)
	if err != nil {
		return "", fmt.Errorf("starting the schedule: %w", err)
	}
	return fmt.Sprintf("%s: every %s, until /loop stop %s or the session ends. "+
		"A firing while no prompt runs waits for your next prompt.", j.ID, cmd.Every, j.ID), nil
}
