package scheduler

import (
	"strings"
	"testing"
)

// TestForeignToolNames: the names other agents give their tools point to
// ply's.
func TestForeignToolNames(t *testing.T) {
	names := []string{"edit", "glob", "grep_search", "list_directory", "read_file", "run_shell_command", "web_fetch", "write_file"}
	for foreign, want := range map[string]string{
		"bash": "run_shell_command", "Bash": "run_shell_command", "shell": "run_shell_command", "exec_command": "run_shell_command",
		"Read": "read_file", "view": "read_file", "cat": "read_file",
		"str_replace": "edit", "str_replace_editor": "edit", "apply_patch": "edit", "MultiEdit": "edit", "replace": "edit",
		"Write": "write_file", "create_file": "write_file",
		"Grep": "grep_search", "search_file_content": "grep_search", "rg": "grep_search",
		"LS": "list_directory", "ls": "list_directory", "Glob": "glob", "find_files": "glob",
		"WebFetch": "web_fetch", "fetch": "web_fetch",
	} {
		msg := notRegistered(foreign, names)
		if !strings.Contains(msg, `Did you mean "`+want+`"?`) {
			t.Errorf("%s: %s", foreign, msg)
		}
	}
	// An alias whose tool is not offered suggests nothing false.
	if msg := notRegistered("bash", []string{"read_file"}); strings.Contains(msg, "run_shell_command") {
		t.Errorf("suggested a tool that is not offered: %s", msg)
	}
}
