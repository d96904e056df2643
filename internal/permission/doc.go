// Package permission decides which tool calls may run without asking. It
// implements scheduler.Policy for ply's approval modes (plan, default,
// auto-edit, yolo) and for permission rules written the way users of Qwen
// Code and Claude Code write them, from settings (permissions.allow, ask and
// deny) and from the --allowed-tools, --exclude-tools and --core-tools flags.
//
// What it owns: the approval modes and switching between them at run time;
// the rule syntax, its parser and its error messages; which tools are
// offered to the model at all; the precedence deny > ask > allow > the
// mode's default; confinement of writes (never inside .git, auto-approved
// only inside the workspace); the "allow always" rules of a session; and the
// reason sent to the model with every verdict.
//
// What it must not touch: it never runs anything — shell commands are only
// parsed, by internal/shell, and files are only looked at with Lstat and
// Readlink to follow symbolic links. It never asks the user (the
// scheduler's Approver does), has no UI and no HTTP, reads no settings file
// (the caller passes the rule lists in) and persists nothing by itself:
// session rules die with the Policy, unless the caller saves them with
// SaveAllowRules, which appends to a settings file's permissions.allow
// as text, keeping the file's comments.
//
// # Rules
//
// A rule is a tool name, optionally followed by a specifier in parentheses.
// Tool names may be ply's (read_file, run_shell_command) or the aliases
// users of other agents know (Read, Bash, ShellTool, LS, ...); aliases are
// matched without regard to case. Tool(*) is the same as Tool.
//
//	Bash(git status)        exactly the command "git status"
//	Bash(git *)             git with any arguments, or none
//	Bash(npm run test:*)    "npm run test" followed by anything (Claude's :*)
//	Bash(@workspace rm:*)   rm, when every path it names is inside the workspace
//	Read(.env)              a file named .env at any depth of the workspace
//	Read(**/*.key)          *.key files anywhere in the workspace
//	Edit(/src/**)           everything under src/ of the workspace root
//	Edit(//etc/**)          an absolute path
//	Read(~/.ssh/**)         a path under the home directory
//	WebFetch(domain:x.com)  fetches from x.com (*.x.com: its subdomains)
//	mcp__github             every tool of the MCP server "github"
//	mcp__github__get_issue  one tool of that server
//
// A web_fetch sends its URL off the machine, so no mode but yolo runs one
// unasked: the reason shown with the question holds the whole URL. A domain
// rule matches the URL's host exactly (a port does not matter);
// domain:*.x.com matches the subdomains of x.com but not x.com itself.
// "Allow always" on a fetch adds WebFetch(domain:HOST) for its host only.
//
// Shell patterns are matched word by word against every simple command of a
// parsed command line, after quote removal: a lone * stands for any number
// of words, a * inside a word for any characters within that word (a word
// ending in * at the end of the pattern also accepts further words, so
// Bash(ls*) covers both lsof and ls -la). A rule cannot contain shell
// operators, redirections or substitutions. In --exclude-tools and
// --core-tools a shell pattern without a * is a prefix, as in Qwen Code.
//
// A shell pattern that starts with the word @workspace covers a command
// only when, besides matching, every path the command may name (its
// operands, the values of its options, the value of key=value words such
// as dd's of=, its redirections) is a literal path strictly inside a
// workspace root and outside .git, as written and with links followed,
// and the line does not change directory: a glob, a tilde, a variable,
// the root itself or a path outside make it not covered. "Allow always"
// for a program that deletes or overwrites files (rm, mv, cp, dd, sed,
// chmod, find, git clean, git reset, ...) adds such a rule, since only
// inside the workspace can a checkpoint restore what it destroys.
//
// An allow rule covers a command only when every simple command of it is
// covered (by some allow rule, or by being read-only on its own), every word
// is literal and nothing is redirected to a file: "git status && rm -rf x"
// is not covered by Bash(git *). A git command that changes which
// configuration or repository git uses (-c, --config-env, --exec-path, -C,
// --git-dir, --work-tree) or writes configuration (git config without a
// reading option) is covered only by a rule that names that option or
// "config": Bash(git *) does not cover git -c alias.x='!cmd' x, but
// Bash(git -c *) does. The parts of a line are judged where they run: a
// line with one cd to a literal directory inside the workspace has its
// uncovered parts judged read-only both there and in the call's directory,
// and a line with any other change of directory (a second cd, pushd, popd,
// cd -, source, eval) has none judged read-only. git run after a change of
// directory, or in a directory inside another repository (a nested .git,
// a committed bare repository), is never covered by a rule with a
// pattern: that repository's configuration came with the files and can
// name programs git runs. Deny and ask rules are the opposite: they catch a
// command when any part of it matches, and they also look through sudo,
// env (and env -S), xargs, find -exec, sh -c, eval and trap strings and the
// like, and split a command that does not parse as well as they can.
//
// Deny and ask rules fail closed. A command that is opaque (shell.Opaque:
// a program named by a substitution, a variable or $IFS, coproc, a shell
// reading its script from a pipe, a here-string, a here-document or a
// process substitution, source <(...), sh -c with a script known only at
// run time or running "$0", eval of a substitution, wrappers nested deeper
// than the rules look, ...) is caught by every deny and ask rule on the
// shell tool, since it may run the program the rule names; the reason says
// so. No allow rule with a pattern covers an opaque command, and it is
// never read-only; only the bare tool name (Bash) allows it.
//
// Path patterns are gitignore-style and use doublestar globs: a pattern
// without a slash matches at any depth, a pattern matches everything below a
// directory it matches, and a trailing slash changes nothing. Rules with a
// path on any file-reading tool (read_file, read_many_files, grep_search,
// glob, list_directory) apply to all of them, and rules with a path on edit
// or write_file apply to both: a path rule protects files, whatever tool
// touches them. A bare tool name, on the other hand, is about that tool
// only: Edit allows edit, not write_file. Deny and ask rules match the path as written or the file it
// resolves to after following symbolic links; allow rules must match the
// resolved file.
//
// Deny and ask path rules reach shell commands too, in every mode: a
// command whose operand, option value or redirection names a path under
// a deny rule (as written, after following links, or as a glob expands)
// is denied, naming the rule; one that names a path under an ask rule,
// or searches a directory holding such a path (grep -r, rg, git grep,
// and any program not known to read only what it is given: tar, cp -r,
// ...), asks. So does a command whose file operands are known only at
// run time (a variable, a substitution, xargs) while any such rule
// exists. Rules about writing (Edit, Write) are not applied to a command
// judged read-only. What a program reads on its own (npm test reading
// .env) is beyond the command line, and beyond the rules.
package permission
