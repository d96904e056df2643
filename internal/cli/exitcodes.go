package cli

import "github.com/plyhq/ply/internal/headless"

// exitCodes is the table --help prints; the README has the same one.
var exitCodes = []struct {
	code  int
	means string
}{
	{headless.ExitOK, "success"},
	{headless.ExitError, "anything else (an API error, an internal error)"},
	{headless.ExitAuth, "authentication failed"},
	{headless.ExitInput, "bad input or flags"},
	{headless.ExitConfig, "bad configuration (settings, environment)"},
	{headless.ExitTurnLimit, "the session turn limit was reached (--max-session-turns)"},
	{headless.ExitToolError, "a tool error, or a PostToolBatch hook, ended the run"},
	{headless.ExitBudget, "a budget ran out: --max-tool-calls, --max-wall-time, the per-turn cap (model.maxToolCallsPerTurn) or a loop guard"},
	{headless.ExitCancelled, "cancelled (Ctrl+C, SIGINT)"},
}
