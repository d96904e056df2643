package acp

import (
	"encoding/json"
	"strings"

	"github.com/plyhq/ply/internal/callsummary"

	sdk "github.com/coder/acp-go-sdk"
)

// call is how a tool call is shown to the client.
type call struct {
	title     string
	kind      sdk.ToolKind
	locations []sdk.ToolCallLocation
	raw       any
}

// callArgs are the arguments of ply's tools that say what a call is
// about; unknown ones are ignored.
type callArgs struct {
	FilePath  string   `json:"file_path"`
	Path      string   `json:"path"`
	Paths     []string `json:"paths"`
	Directory string   `json:"directory"`
	Command   string   `json:"command"`
	Pattern   string   `json:"pattern"`
	URL       string   `json:"url"`
	OldString string   `json:"old_string"`
	NewString string   `json:"new_string"`
	Content   string   `json:"content"`
	Plan      string   `json:"plan"`
}

func parseArgs(args string) callArgs {
	var a callArgs
	_ = json.Unmarshal([]byte(args), &a) // a call with bad arguments is shown by name only
	return a
}

// kinds maps ply's tools to the protocol's tool kinds.
var kinds = map[string]sdk.ToolKind{
	"read_file":         sdk.ToolKindRead,
	"read_many_files":   sdk.ToolKindRead,
	"list_directory":    sdk.ToolKindRead,
	"edit":              sdk.ToolKindEdit,
	"write_file":        sdk.ToolKindEdit,
	"run_shell_command": sdk.ToolKindExecute,
	"grep_search":       sdk.ToolKindSearch,
	"glob":              sdk.ToolKindSearch,
	"web_fetch":         sdk.ToolKindFetch,
	"todo_write":        sdk.ToolKindThink,
	"ask_user_question": sdk.ToolKindThink,
	"exit_plan_mode":    sdk.ToolKindSwitchMode,
}

// describe says what a call named name with args is: its title, kind,
// the files it touches and its arguments.
func describe(name, args string) call {
	a := parseArgs(args)
	c := call{title: name, kind: sdk.ToolKindOther, raw: rawArgs(args)}
	if k, ok := kinds[name]; ok {
		c.kind = k
	}
	switch {
	case a.FilePath != "":
		c.locations = []sdk.ToolCallLocation{{Path: a.FilePath}}
	case a.Command != "", a.URL != "":
	case a.Path != "":
		c.locations = []sdk.ToolCallLocation{{Path: a.Path}}
	case a.Directory != "":
		c.locations = []sdk.ToolCallLocation{{Path: a.Directory}}
	}
	// The title names the call as the TUI's card does.
	subject := callsummary.Subject(name, args)
	if subject != "" {
		c.title = name + ": " + oneLine(subject, 120)
	}
	return c
}

// oneLine is s on one line, cut to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// proposedContent is what an approval shows: the diff an edit would make.
func proposedContent(name, args string) []sdk.ToolCallContent {
	a := parseArgs(args)
	switch {
	case name == "edit" && a.FilePath != "":
		return []sdk.ToolCallContent{sdk.ToolDiffContent(a.FilePath, a.NewString, a.OldString)}
	case name == "write_file" && a.FilePath != "":
		return []sdk.ToolCallContent{sdk.ToolDiffContent(a.FilePath, a.Content)}
	case name == "exit_plan_mode" && a.Plan != "":
		return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(a.Plan))}
	}
	return nil
}

// resultContent is what a finished call shows: the diff of a successful
// edit, otherwise the output text.
func resultContent(name, args, output string, ok bool) []sdk.ToolCallContent {
	if ok {
		if d := proposedContent(name, args); d != nil {
			return d
		}
	}
	if output == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(output))}
}

// planOf is the plan a successful todo_write call sets, if name is that
// tool and its arguments decode.
func planOf(name, args string) ([]sdk.PlanEntry, bool) {
	if name != "todo_write" {
		return nil, false
	}
	var a struct {
		Todos []struct{ Content, Status string } `json:"todos"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return nil, false
	}
	entries := make([]sdk.PlanEntry, 0, len(a.Todos))
	for _, t := range a.Todos {
		st := sdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: t.Content, Status: st, Priority: sdk.PlanEntryPriorityMedium})
	}
	return entries, true
}
