// Package exitcode holds ply's process exit codes, as Qwen Code's, and
// what each means: every entry layer (headless, the SDK session, the TUI,
// the commands) returns these, and --help prints Table.
package exitcode

// Exit codes.
const (
	OK        = 0
	Error     = 1
	Auth      = 41
	Input     = 42
	Config    = 52
	TurnLimit = 53
	ToolError = 54
	Budget    = 55
	Unsaved   = 56
	Cancelled = 130
)

// Meaning is one row of Table.
type Meaning struct {
	Code  int
	Means string
}

// Table is what each code means, in the order --help prints them; the
// README has the same table.
var Table = []Meaning{
	{OK, "success"},
	{Error, "anything else (an API error, an internal error)"},
	{Auth, "authentication failed"},
	{Input, "bad input or flags"},
	{Config, "bad configuration (settings, environment)"},
	{TurnLimit, "the session turn limit was reached (--max-session-turns)"},
	{ToolError, "a tool error, or a PostToolBatch hook, ended the run"},
	{Budget, "a budget ran out: --max-tool-calls, --max-wall-time, the per-turn cap (model.maxToolCallsPerTurn) or a loop guard"},
	{Unsaved, "the session could not be saved (PLY_HOME full or not writable): the run stopped"},
	{Cancelled, "cancelled (Ctrl+C, SIGINT)"},
}
