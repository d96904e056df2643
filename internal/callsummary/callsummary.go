// Package callsummary names what a tool call is about, in one line, from
// its name and arguments: `"countValue" in .` for a search,
// `internal/x.go:11-50` for a read, the command for a shell call. Every
// place that shows a call to a person (a tool card, a resumed
// conversation, a dialog) names it through Subject, so a call reads the
// same everywhere. It only reads the arguments: it runs nothing and
// touches no file.
package callsummary

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// args are the arguments of ply's tools that say what a call is about;
// others are ignored.
type args struct {
	FilePath    string   `json:"file_path"`
	Path        *string  `json:"path"`
	Paths       []string `json:"paths"`
	Pattern     string   `json:"pattern"`
	Glob        *string  `json:"glob"`
	Offset      *float64 `json:"offset"`
	Limit       *float64 `json:"limit"`
	Command     string   `json:"command"`
	Directory   *string  `json:"directory"`
	Background  bool     `json:"is_background"`
	URL         string   `json:"url"`
	Query       string   `json:"query"`
	Description string   `json:"description"`
	TaskID      string   `json:"task_id"`
	Todos       []any    `json:"todos"`
}

// Subject returns what a call of the tool name with the JSON arguments
// args is about, on one line; "" when the tool is not one of ply's or
// its arguments do not say (the caller shows the arguments instead).
func Subject(name, argsJSON string) string {
	var a args
	if json.Unmarshal([]byte(argsJSON), &a) != nil {
		return ""
	}
	return oneLine(subject(name, a))
}

func subject(name string, a args) string {
	switch name {
	case "read_file":
		return a.FilePath + lineRange(a.Offset, a.Limit)
	case "edit", "write_file":
		return a.FilePath
	case "grep_search":
		if a.Pattern == "" {
			return ""
		}
		s := strconv.Quote(a.Pattern) + " in " + orDot(a.Path)
		if a.Glob != nil && *a.Glob != "" {
			s += " (" + *a.Glob + ")"
		}
		return s
	case "glob":
		if a.Pattern == "" || a.Path == nil || *a.Path == "" {
			return a.Pattern
		}
		return a.Pattern + " in " + *a.Path
	case "list_directory":
		return orDot(a.Path)
	case "read_many_files":
		return strings.Join(a.Paths, ", ")
	case "run_shell_command":
		s := a.Command
		if s != "" && a.Directory != nil && *a.Directory != "" {
			s += " (in " + *a.Directory + ")"
		}
		if s != "" && a.Background {
			s += " &"
		}
		return s
	case "web_fetch":
		return a.URL
	case "web_search":
		if a.Query == "" {
			return ""
		}
		return strconv.Quote(a.Query)
	case "agent":
		return a.Description
	case "todo_write":
		if a.Todos == nil {
			return ""
		}
		if len(a.Todos) == 1 {
			return "1 task"
		}
		return fmt.Sprintf("%d tasks", len(a.Todos))
	case "task_output", "task_stop":
		return a.TaskID
	}
	return ""
}

// lineRange is ":11-50" for a read from line 11 (offset 10) of 40 lines,
// "" for a whole file. Offsets count from 0, lines from 1.
func lineRange(offset, limit *float64) string {
	if offset == nil && limit == nil {
		return ""
	}
	from := 1
	if offset != nil && *offset >= 0 && *offset < 1e9 {
		from = int(*offset) + 1
	}
	if limit == nil || *limit <= 0 || *limit >= 1e9 {
		return fmt.Sprintf(":%d-", from)
	}
	return fmt.Sprintf(":%d-%d", from, from+int(*limit)-1)
}

func orDot(p *string) string {
	if p == nil || *p == "" {
		return "."
	}
	return *p
}

// oneLine joins s's lines and runs of spaces with one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
