package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

func init() {
	registerCommand(slashCommand{name: "/cost", help: "what this session cost: money, tokens, time and lines changed", run: (*model).costCommand})
}

// costCommand says what the session spent, as Claude Code's /cost does:
// the money at the model's prices, the tokens, the time, and the lines
// the session changed (the last from the checkpoints, off the UI's
// goroutine, where the session keeps them).
func (m *model) costCommand(string) tea.Cmd {
	s := m.stats
	u := s.usage
	cost := "  cost        unknown: no price is known for " + sanitize(m.cfg.Model) + " (set modelProviders.NAME.pricing in settings)"
	if s.priced {
		cost = "  cost        ~" + money(s.cost) + " (at the model's list prices)"
	}
	head := strings.Join([]string{
		"Session cost:",
		cost,
		fmt.Sprintf("  tokens      %d in (%d cached), %d out", u.InputTokens, u.CachedTokens, u.OutputTokens),
		fmt.Sprintf("  time        %s, %d model round(s)", time.Since(s.start).Round(time.Second), s.rounds),
	}, "\n")
	d, ok := probe[Differ](m)
	if !ok {
		return m.commit(head)
	}
	base := m.base
	return func() tea.Msg {
		changes, err := d.Diff(base)
		return funcMsg(func(m *model) tea.Cmd { return m.commit(head + "\n" + changedLines(changes, err)) })
	}
}

// changedLines counts the lines added and removed over changes.
func changedLines(changes Changes, err error) string {
	if err != nil {
		return "  changes     unknown: " + sanitize(err.Error())
	}
	var add, del, bin int
	for _, c := range changes.Files {
		if c.Binary || c.NoContent {
			bin++
			continue
		}
		for _, l := range lineDiff(c.Old, c.New, 0) {
			switch {
			case strings.HasPrefix(l, "+"):
				add++
			case strings.HasPrefix(l, "-"):
				del++
			}
		}
	}
	out := fmt.Sprintf("  changes     %d line(s) added, %d removed, in %d file(s)", add, del, len(changes.Files))
	if bin > 0 {
		out += fmt.Sprintf(" (%d not counted: binary or over the checkpoint size cap)", bin)
	}
	if changes.Partial {
		out += " (only the files saved before their first change: the first checkpoint was never stored whole)"
	}
	return out
}
