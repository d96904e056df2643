package tui

import "github.com/plyhq/ply/internal/callsummary"

// callSubject names what a call is about, as every place in the UI that
// names a call shows it (a card, a resumed conversation): the tool's own
// summary, or its main argument for a tool without one (MCP tools).
func callSubject(name, args string) string {
	if s := callsummary.Subject(name, args); s != "" {
		return s
	}
	return argSummary(args)
}
