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

	"github.com/plyhq/ply/internal/safefile"
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
	// Mode is the approval mode (plan, default, auto-edit, yolo); ""
	// leaves the approval section out.
	Mode string
	// Interactive says a person can answer approval requests (the TUI,
	// an SDK with can_use_tool); otherwise a call that needs approval is
	// refused.
	Interactive bool
	// Sandbox describes the confinement of shell commands ("" for none).
	Sandbox string
	// NoAutoSandbox is why auto mode cannot run commands in the kernel's
	// workspace sandbox ("" when it can): they then ask.
	NoAutoSandbox string
	// Repo is the repository snapshot taken at start, nil for none; the
	// branch named is its branch, or without it the one checked out now.
	Repo *Repo
	// Subagent selects the base prompt of a subagent, which works alone
	// on one task with the tools it was given.
	Subagent bool
	// Editor says how the user reaches ply from an editor ("" when they
	// do not): EditorACP.
	Editor string
}

// EditorACP: an editor drives ply through the Agent Client Protocol (Zed,
// JetBrains IDEs).
const EditorACP = "acp"

// editorNote tells the model the user is in an editor, and what follows
// from it.
const editorNote = "- The user works in their editor, which talks to you through the Agent Client Protocol: they read your answers " +
	"and review file changes there, and the files, selections and symbols they attach to a message are named in it with @ " +
	"and described after it in a system reminder. Refer to code by path and line so that they can follow it.\n"

const instructions = `You are ply, a coding agent working in the user's repository from their terminal. You help with software engineering tasks: reading and changing code, running commands, finding and fixing bugs, explaining code.

How to work:
- Understand before changing: use grep_search, glob, list_directory and read_file to learn the code and its conventions. Read a file before you edit it.
- Make changes with edit (exact old_string with enough context to be unique) or write_file (whole files). Keep to the project's style, naming and libraries; never assume a library is available: check the project's manifests.
- Use run_shell_command to build, test, lint and inspect. Explain a command that modifies files or the system before running it. Prefer non-interactive commands; never start editors or pagers.
- Verify your work: run the project's tests or build after a change when they exist.
- Paths given to tools are absolute or relative to the workspace root; stay inside the workspace.
- Several independent tool calls may be made in one reply; they are run in parallel when safe.
- Git: never commit, push, stash, reset, checkout or clean the user's work unless asked; the working tree may hold uncommitted changes that are not yours.
- Verify for real: a pipe into head or tail hides a command's exit status; go test and similar tools may report cached results (use -count=1); a test that did not run proves nothing.
- Fix what was asked. Leave unrelated problems alone, but mention the ones you notice.
- Do not stop to ask for confirmation on routine steps; ask only when the request is ambiguous or a step is destructive. If a tool call is refused, do not repeat it: do what you can without it.
- Be concise. The final answer says what you changed (file:line where useful), how you verified it, and what you could not verify or do.`

// subagentInstructions is the base prompt of a subagent: it works alone,
// with only the tools it was given, for the agent that started it.
const subagentInstructions = `You are a subagent of ply, a coding agent: the main agent handed you one task in the user's repository. Work on it alone with the tools listed below; you have no others, and no one can answer questions.

How to work:
- Search and read before concluding: grep_search, glob, list_directory and read_file when you have them. Paths are absolute or relative to the workspace root.
- Change files or run commands only if the task asks for it and you have the tools to do it.
- Be thorough but economical: make independent tool calls in one reply.`

// Build returns the system prompt for env.
func Build(env Env) string {
	var b strings.Builder
	switch {
	case env.Override != "":
		b.WriteString(env.Override)
	case env.Subagent:
		b.WriteString(subagentInstructions)
	default:
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
	br := ""
	if env.Repo != nil {
		// The snapshot's, which a resumed session shows unchanged.
		br = env.Repo.Branch
	} else {
		br = gitBranch(env.Workspace)
	}
	if br != "" {
		b.WriteString("- Git repository, on branch: " + br + "\n")
	}
	if len(env.Tools) > 0 {
		b.WriteString("- Tools available: " + strings.Join(env.Tools, ", ") + "\n")
	}
	if env.Editor == EditorACP {
		b.WriteString(editorNote)
	}
	b.WriteString(approvalSection(env))
	if env.Repo != nil {
		b.WriteString(env.Repo.render())
	}
	b.WriteString(renderInstructions(env.Instructions))
	if env.Append != "" {
		b.WriteString("\n")
		b.WriteString(env.Append)
		b.WriteString("\n")
	}
	return b.String()
}

// maxHead caps what is read of .git/HEAD: a ref name or an object id.
const maxHead = 4 << 10

// gitBranch reads the branch from .git/HEAD of dir or an ancestor, without
// running git.
func gitBranch(dir string) string {
	for d := dir; ; {
		head, err := safefile.Read(filepath.Join(gitDir(d), "HEAD"), maxHead)
		if err == nil {
			s := strings.TrimSpace(string(head.Data))
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

// repoDirs finds the repository dir is in: its top directory and its git
// directory (which a worktree or a submodule keeps elsewhere).
func repoDirs(dir string) (root, gdir string, ok bool) {
	for d := dir; ; {
		g := gitDir(d)
		if _, err := os.Stat(filepath.Join(g, "HEAD")); err == nil {
			return d, g, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", false
		}
		d = parent
	}
}

// gitDir is dir's .git directory, following the "gitdir: path" file that
// a worktree or a submodule has instead.
func gitDir(dir string) string {
	dot := filepath.Join(dir, ".git")
	f, err := safefile.Read(dot, maxHead)
	if err != nil {
		return dot // a directory, or nothing
	}
	p, ok := strings.CutPrefix(strings.TrimSpace(string(f.Data)), "gitdir: ")
	if !ok {
		return dot
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}
