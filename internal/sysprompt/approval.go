package sysprompt

import (
	"slices"
	"strings"
)

// asksFirst reports whether the tool may need approval in default mode.
func asksFirst(name string) bool {
	return name == "edit" || name == "write_file" || name == "run_shell_command"
}

// readOnlyExamples are commands the shell classifier lets run unasked;
// naming a few saves the model a turn of probing.
const readOnlyExamples = "ls, cat, head, wc, grep, find without -exec or -delete, git status, git diff, git log, git show"

// approvalSection tells the model what runs unasked in env.Mode and what
// happens to the rest, so that it plans around approvals instead of
// discovering them one refusal at a time.
func approvalSection(env Env) string {
	if env.Mode == "" || (env.Subagent && !slices.ContainsFunc(env.Tools, asksFirst)) {
		return ""
	}
	needs := "wait for the user's approval (the user may refuse)"
	if !env.Interactive {
		needs = "are refused, because no one can approve calls in this run: do not retry them; finish what you can and say what you could not do or verify"
	}
	var b strings.Builder
	b.WriteString("\n# Approval mode: " + env.Mode + "\n")
	switch env.Mode {
	case "yolo":
		b.WriteString("- Every tool call runs without asking. You are trusted with the user's machine: never run destructive commands the task does not need.\n")
	case "plan":
		b.WriteString("- Plan mode: only tools that read or search run (read_file, grep_search, glob, list_directory, web_fetch, read-only shell commands). Edits and other commands are refused.\n")
		b.WriteString("- Explore, then present your plan with exit_plan_mode and wait for the user's decision.\n")
	case "auto-edit":
		b.WriteString("- Reading and searching tools, and edit and write_file on files inside the workspace, run without asking.\n")
		b.WriteString("- Shell commands known to only read run without asking (for example: " + readOnlyExamples + "), confined so that they cannot write or use the network.\n")
		b.WriteString("- Any other shell command, and edits outside the workspace, " + needs + ".\n")
	case "auto":
		b.WriteString("- Reading and searching tools, and edit and write_file on files inside the workspace, run without asking.\n")
		if env.NoAutoSandbox != "" {
			b.WriteString("- Shell commands known to only read run without asking (for example: " + readOnlyExamples + "). This system has no sandbox for other commands (" + env.NoAutoSandbox + "), so any other shell command, and edits outside the workspace, " + needs + ".\n")
			break
		}
		b.WriteString("- Every shell command runs without asking, inside a sandbox: it may write only the workspace, its own $TMPDIR and per-project caches (GOCACHE, pip, npm, XDG_CACHE_HOME); it reads the workspace, the system and toolchains but not the rest of the home directory; it has no network. Run the project's tests and builds to verify your work.\n")
		b.WriteString("- A command the sandbox refused says so in its result. Only if the task needs it, call run_shell_command again with run_outside_sandbox: true and a one-line justification: such calls " + needs + ".\n")
		b.WriteString("- Edits outside the workspace, and web_fetch, " + needs + ". Everything done in this mode can be rewound by the user.\n")
	default:
		b.WriteString("- Reading and searching tools run without asking.\n")
		b.WriteString("- Shell commands known to only read run without asking (for example: " + readOnlyExamples + "), confined so that they cannot write or use the network.\n")
		b.WriteString("- edit, write_file and any other shell command " + needs + ".\n")
	}
	if env.Sandbox != "" {
		b.WriteString("- Sandbox: " + env.Sandbox + "\n")
	}
	return b.String()
}
