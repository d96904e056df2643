// Package sysprompt builds the system prompt of a coding agent: how to
// work, the tools on offer, the environment (workspace, OS, date, git
// branch) and the instruction files of the user and the project. It reads
// a few small files and runs no processes, so it costs microseconds at
// startup.
package sysprompt

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Env is what the prompt tells the model about where it runs.
type Env struct {
	Workspace string
	Tools     []string
	Now       time.Time
	// Append is added at the end (--append-system-prompt).
	Append string
	// Override replaces the built-in instructions (--system-prompt); the
	// environment section is still added.
	Override string
	// Instructions are the user's and the project's instruction files.
	Instructions []Instruction
}

const instructions = `You are ply, a coding agent working in the user's repository from their terminal. You help with software engineering tasks: reading and changing code, running commands, finding and fixing bugs, explaining code.

How to work:
- Understand before changing: use grep_search, glob, list_directory and read_file to learn the code and its conventions. Read a file before you edit it.
- Make changes with edit (exact old_string with enough context to be unique) or write_file (whole files). Keep to the project's style, naming and libraries; never assume a library is available: check the project's manifests.
- Use run_shell_command to build, test, lint and inspect. Explain a command that modifies files or the system before running it. Prefer non-interactive commands; never start editors or pagers.
- Verify your work: run the project's tests or build after a change when they exist.
- Paths given to tools are absolute or relative to the workspace root; stay inside the workspace.
- Be concise. When the task is done, say briefly what you changed. Do not stop to ask for confirmation on routine steps; ask only when the request is ambiguous or a step is destructive.
- Several independent tool calls may be made in one reply; they are run in parallel when safe.`

// Build returns the system prompt for env.
func Build(env Env) string {
	var b strings.Builder
	if env.Override != "" {
		b.WriteString(env.Override)
	} else {
		b.WriteString(instructions)
	}
	b.WriteString("\n\n# Environment\n")
	b.WriteString("- Workspace root: " + env.Workspace + "\n")
	b.WriteString("- Operating system: " + runtime.GOOS + "/" + runtime.GOARCH + "\n")
	now := env.Now
	if now.IsZero() {
		now = time.Now()
	}
	b.WriteString("- Today's date: " + now.Format("Monday, 2 January 2006") + "\n")
	if br := gitBranch(env.Workspace); br != "" {
		b.WriteString("- Git repository, on branch: " + br + "\n")
	}
	if len(env.Tools) > 0 {
		b.WriteString("- Tools available: " + strings.Join(env.Tools, ", ") + "\n")
	}
	b.WriteString(renderInstructions(env.Instructions))
	if env.Append != "" {
		b.WriteString("\n")
		b.WriteString(env.Append)
		b.WriteString("\n")
	}
	return b.String()
}

// gitBranch reads the branch from .git/HEAD of dir or an ancestor, without
// running git.
func gitBranch(dir string) string {
	for d := dir; ; {
		head, err := os.ReadFile(filepath.Join(d, ".git", "HEAD"))
		if err == nil {
			s := strings.TrimSpace(string(head))
			if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
				return ref
			}
			if len(s) >= 12 {
				return "(detached at " + s[:12] + ")"
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
