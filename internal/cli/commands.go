package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/exitcode"
)

// command is one of ply's subcommands, such as `ply sessions` or
// `ply mcp add`, or a group of them, such as `ply mcp`. The one table of
// them, commands, drives both Main's dispatch and the help, so that a
// subcommand cannot run without being in ply --help.
type command struct {
	name string
	// aliases are other names that run the command (mcp rm).
	aliases []string
	// usage holds its synopses, each a whole command line.
	usage []string
	// short is its line in ply --help, under its synopses.
	short string
	// long is what ply NAME --help says below the synopses.
	long string
	// run runs a command with the arguments after its name and returns
	// the exit code. A group has none: it runs one of subs.
	run  func(ctx context.Context, args []string, sio IO) int
	subs []*command
	// helpWord: the bare word "help" as the first argument asks for
	// help too. It is set only where no first argument is a word of the
	// user's (a folder, a server's name), so that it cannot shadow one.
	helpWord bool
}

// commands returns the table of ply's subcommands, in the order ply
// --help lists them.
func commands() []*command {
	return []*command{
		{
			name:  "sessions",
			usage: []string{"ply sessions [--prune OLDER_THAN]"},
			short: "list this project's saved sessions, or remove those last active longer ago than OLDER_THAN (30d, 12h)",
			long: "List this project's saved sessions; --prune removes those last active longer ago than\n" +
				"OLDER_THAN (30d, 12h), with their files.",
			run:      sessionsCommand,
			helpWord: true,
		},
		{
			name: "rewind",
			usage: []string{
				"ply rewind --list [-r ID]",
				"ply rewind N [-r ID] [--code|--conversation]",
				"ply rewind --undo [-r ID]",
				"ply rewind --finish [-r ID]",
			},
			short: "list a session's prompts, put files and/or the conversation back to before prompt N, or undo that",
			long: "--list prints the prompts of the latest session (or session ID), with the files changed since\n" +
				"each up to the last checkpoint. N puts the files and the conversation back to just before prompt N\n" +
				"(1 is the first); --code or --conversation puts back only that one. --undo reverses the last\n" +
				"rewind. --finish completes a rewind that a crash or SIGKILL left half done.",
			run:      rewindCommand,
			helpWord: true,
		},
		{
			name: "trust",
			usage: []string{
				"ply trust [--parent] [DIR]",
				"ply trust --list",
				"ply trust --remove DIR",
			},
			short: "trust a folder (by default this one): load its .ply/settings.json and .ply/agents; list or forget trusted folders",
			long: "Trusting a folder lets ply load its .ply/settings.json (approval mode, hooks, MCP servers,\n" +
				"providers) and .ply/agents; it and its subfolders are trusted. --parent trusts DIR's parent\n" +
				"instead. --list prints the trusted folders; --remove DIR forgets one.",
			run: trustCommand,
		},
		{
			name:  "worktree",
			usage: []string{"ply worktree COMMAND [ARGS...]"},
			long: "Manage the git worktrees ply --worktree makes under .ply/worktrees of the repository, each on\n" +
				"its own branch ply/NAME.",
			helpWord: true,
			subs: []*command{
				{
					name:  "list",
					usage: []string{"ply worktree list"},
					short: "list the repository's ply worktrees: name, branch, uncommitted changes, path",
					long:  "List the repository's ply worktrees with their branch, the number of uncommitted changes and the path.",
					run:   worktreeListCommand,
				},
				{
					name:    "remove",
					aliases: []string{"rm"},
					usage:   []string{"ply worktree remove [--force] NAME"},
					short:   "remove a worktree (refused while it has uncommitted changes, unless --force); its branch stays",
					long: "Remove the worktree NAME. One with uncommitted changes (modified, staged or untracked files)\n" +
						"is refused unless --force, which discards them. The branch ply/NAME and its commits stay.",
					run: worktreeRemoveCommand,
				},
			},
		},
		{
			name:  "version",
			usage: []string{"ply version"},
			short: "print ply's version (as ply --version)",
			long:  "Print ply's version and the commit it was built from.",
			run: func(_ context.Context, _ []string, sio IO) int {
				fmt.Fprintln(sio.Stdout, versionLine(Version, Commit, buildInfo()))
				return 0
			},
			helpWord: true,
		},
		{
			name:  "mcp",
			usage: []string{"ply mcp COMMAND [ARGS...]"},
			long: "Manage MCP servers: list them with their status and tools, add or remove them in the\n" +
				"user's or the project's settings, and sign in to those that require OAuth.",
			helpWord: true,
			subs: []*command{
				{
					name:  "list",
					usage: []string{"ply mcp list [--mcp-config JSON|FILE]"},
					short: "start the configured MCP servers and list their status and tools",
					long: "Start the configured MCP servers (and those of --mcp-config), list their status and\n" +
						"tools, and stop them. It exits 1 when a server that is not disabled fails to start.",
					run: mcpListCommand,
				},
				{
					name: "add",
					usage: []string{
						"ply mcp add [--scope user|project] [-e KEY=VALUE]... NAME -- COMMAND [ARGS...]",
						"ply mcp add --transport http|sse [--scope user|project] [-H 'Name: value']... NAME URL",
					},
					short: "add a stdio server, or an HTTP or SSE one, to the user's (default) or the project's settings",
					long: "Add a server that ply starts as COMMAND, with -e's variables, or one it reaches at URL,\n" +
						"with -H's headers. --scope project writes .ply/settings.json, which is read only in a\n" +
						"trusted folder (ply trust).",
					run: mcpAddCommand,
				},
				{
					name:    "remove",
					aliases: []string{"rm"},
					usage:   []string{"ply mcp remove [--scope user|project] NAME"},
					short:   "remove a server from the settings (without --scope: the project's, then the user's)",
					long: "Remove the server NAME from the settings of --scope; without it, from the project's\n" +
						"settings if they have it, else from the user's. ply mcp rm is the same.",
					run: mcpRemoveCommand,
				},
				{
					name:  "login",
					usage: []string{"ply mcp login [--device] NAME"},
					short: "sign in to an HTTP server that requires OAuth and keep its token",
					long: "Register ply with the server's authorization server and sign in in the browser; with\n" +
						"--device, or where there is no display, show a code to enter elsewhere. The token is\n" +
						"kept under $PLY_HOME/mcp-oauth and refreshed.",
					run: func(ctx context.Context, args []string, sio IO) int {
						return mcpLoginCommand(ctx, args, sio, false)
					},
				},
				{
					name:  "logout",
					usage: []string{"ply mcp logout NAME"},
					short: "delete the OAuth token kept for a server",
					long:  "Delete the OAuth token ply mcp login kept for the server NAME.",
					run: func(ctx context.Context, args []string, sio IO) int {
						return mcpLoginCommand(ctx, args, sio, true)
					},
				},
			},
		},
	}
}

// lookup returns the command of cs named name, or nil.
func lookup(cs []*command, name string) *command {
	for _, c := range cs {
		if c.name == name {
			return c
		}
		for _, a := range c.aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// runCommand runs the subcommand args name, if any of cs does, and
// reports whether one did. `ply help` alone prints ply --help. Any other
// first word is not a command: it is left to the flags and the prompt.
func runCommand(ctx context.Context, cs []*command, args []string, sio IO) (int, bool) {
	if len(args) == 0 {
		return 0, false
	}
	if len(args) == 1 && args[0] == "help" {
		fmt.Fprint(sio.Stdout, usage())
		return 0, true
	}
	c := lookup(cs, args[0])
	if c == nil {
		return 0, false
	}
	return dispatch(ctx, c, "ply "+c.name, args[1:], sio), true
}

// dispatch runs c, which path ("ply mcp") names, with args, the
// arguments after its name: it prints its help when the first one asks
// for it, and in a group runs the command that one names.
func dispatch(ctx context.Context, c *command, path string, args []string, sio IO) int {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || c.helpWord && args[0] == "help") {
		fmt.Fprint(sio.Stdout, commandHelp(c))
		return 0
	}
	if c.subs == nil {
		awaitSignals(ctx)
		return c.run(ctx, args, sio)
	}
	if len(args) == 0 {
		return fail(sio, exitcode.Input, path+": give a command\n"+synopses(c.subs))
	}
	sub := lookup(c.subs, args[0])
	if sub == nil {
		return fail(sio, exitcode.Input, fmt.Sprintf("%s: unknown command %q\n%s", path, args[0], synopses(c.subs)))
	}
	return dispatch(ctx, sub, path+" "+sub.name, args[1:], sio)
}

// commandHelp is ply NAME --help: its synopses and what it does, and for
// a group the commands in it.
func commandHelp(c *command) string {
	var b strings.Builder
	b.WriteString(synopses([]*command{c}))
	b.WriteByte('\n')
	for line := range strings.Lines(c.long) {
		b.WriteString("  " + line)
	}
	b.WriteByte('\n')
	if c.subs != nil {
		b.WriteString("\nCommands:\n")
		writeCommands(&b, c.subs)
	}
	return b.String()
}

// synopses is "usage: " and the synopses of cs, one a line.
func synopses(cs []*command) string {
	var lines []string
	for _, c := range cs {
		lines = append(lines, c.usage...)
	}
	return "usage: " + strings.Join(lines, "\n       ")
}

// writeCommands lists the commands of cs, those of groups in their
// place: each one's synopses, then its short help beneath them.
func writeCommands(b *strings.Builder, cs []*command) {
	for _, c := range cs {
		if c.subs != nil {
			writeCommands(b, c.subs)
			continue
		}
		for _, u := range c.usage {
			fmt.Fprintf(b, "  %s\n", u)
		}
		fmt.Fprintf(b, "      %s\n", c.short)
	}
}
