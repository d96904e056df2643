package shell

import (
	"slices"
	"strconv"
	"strings"
)

// gitSubcommands maps the read-only subcommands to their argument checks.
// Aliases never appear here: git refuses aliases that shadow built-in
// names, so a name in this table always means the built-in.
var gitSubcommands = map[string]checker{
	"status": gitRead, "log": gitRead, "diff": gitRead, "show": gitRead,
	"rev-parse": gitRead, "ls-files": gitRead, "blame": gitRead, "describe": gitRead,
	"ls-tree": gitRead, "rev-list": gitRead,
	"branch": gitBranch,
	"tag":    gitTag,
	"remote": gitRemote,
	"config": gitConfig,
}

// gitArgs accepts git's global options that only change how it prints,
// then a read-only subcommand. Everything that points git at another
// repository or configuration (-C, --git-dir, --work-tree, -c,
// --config-env, --exec-path, --namespace, ...) or forces a pager
// (-p, --paginate) is refused: git runs programs named by the
// configuration of the repository it opens, and a bare repository is
// just files that any edit can create. Assignments to GIT_* variables are
// refused by the caller, as is every assignment not known to be harmless.
func gitArgs(args []word) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return false
		}
		switch a.text {
		case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
			"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects":
		case "--version":
			return i == len(args)-1
		default:
			if strings.HasPrefix(a.text, "-") {
				return false
			}
			check, ok := gitSubcommands[a.text]
			return ok && check(args[i+1:])
		}
	}
	return false // no subcommand
}

// gitRead covers subcommands that only read, whatever their options,
// except the diff family's --output=<file>, --no-index (compare any two
// files, reading the configuration of whatever repository is around) and
// the options that allow external diff and text conversion programs.
func gitRead(args []word) bool {
	if !noHiddenOptions(args) {
		return false
	}
	for _, a := range args {
		if !a.exact {
			continue
		}
		if a.text == "--" {
			break
		}
		switch {
		case longOption(a.text, "output"), a.text == "--no-index", a.text == "--ext-diff", a.text == "--textconv":
			return false
		}
	}
	return true
}

// gitBranch lists branches; any operand would create, and -d/-m/-c/-u and
// the rest change refs, so only listing options pass, and operands only
// with --list (where they are patterns). -l alone passes, but not as a
// license for operands: it meant --create-reflog in old git.
func gitBranch(args []word) bool {
	list, operands := false, 0
	for _, a := range args {
		if !a.exact {
			if a.mayBeOption() {
				return false
			}
			operands++
			continue
		}
		t := a.text
		switch {
		case t == "--list":
			list = true
		case t == "--all" || t == "--remotes" || t == "--verbose" || t == "--show-current" ||
			t == "--no-color" || t == "--column" || t == "--no-column" || t == "--ignore-case" || t == "--omit-empty":
		case hasAnyPrefix(t, "--color=", "--sort=", "--format=", "--contains=", "--no-contains=",
			"--merged=", "--no-merged=", "--points-at=", "--abbrev="):
		case strings.HasPrefix(t, "-"):
			letters, ok := shortCluster(t)
			if !ok || strings.Trim(letters, "arvli") != "" {
				return false
			}
		default:
			operands++
		}
	}
	return operands == 0 || list
}

// gitTag lists tags: bare, or with -l/--list (where operands are patterns).
func gitTag(args []word) bool {
	if len(args) == 0 {
		return true
	}
	list := false
	for _, a := range args {
		if !a.exact {
			if a.mayBeOption() {
				return false
			}
			continue
		}
		t := a.text
		switch {
		case t == "-l" || t == "--list":
			list = true
		case t == "-i" || t == "--ignore-case" || t == "--column" || t == "--no-column" || t == "--omit-empty":
		case t == "-n" || (strings.HasPrefix(t, "-n") && isDigits(t[2:])):
		case hasAnyPrefix(t, "--color", "--sort=", "--format=", "--contains=", "--no-contains=",
			"--merged=", "--no-merged=", "--points-at="):
		case strings.HasPrefix(t, "-"):
			return false
		}
	}
	return list
}

// gitRemote: bare, -v, or get-url.
func gitRemote(args []word) bool {
	if len(args) == 0 {
		return true
	}
	for _, a := range args {
		if !a.exact {
			return false
		}
	}
	switch args[0].text {
	case "-v", "--verbose":
		return len(args) == 1
	case "get-url":
		operands := 0
		for _, a := range args[1:] {
			switch {
			case a.text == "--push" || a.text == "--all":
			case strings.HasPrefix(a.text, "-"):
				return false
			default:
				operands++
			}
		}
		return operands == 1
	}
	return false
}

// gitConfig reads configuration: it needs an explicit reading mode (--get,
// --list, ... or the newer "get" and "list" subcommands), because a bare
// "git config name value" writes.
func gitConfig(args []word) bool {
	reading := false
	if len(args) > 0 && args[0].exact && (args[0].text == "get" || args[0].text == "list") {
		reading, args = true, args[1:]
	}
	for _, a := range args {
		if !a.exact {
			if a.mayBeOption() {
				return false
			}
			continue // a name or value pattern
		}
		t := a.text
		switch {
		case t == "--get" || t == "--get-all" || t == "--get-regexp" || t == "--get-urlmatch" ||
			t == "--list" || t == "-l":
			reading = true
		case t == "--global" || t == "--system" || t == "--local" || t == "--worktree" ||
			t == "--show-origin" || t == "--show-scope" || t == "--name-only" || t == "-z" || t == "--null" ||
			t == "--bool" || t == "--int" || t == "--bool-or-int" || t == "--path" || t == "--expiry-date" ||
			t == "--includes" || t == "--no-includes" || t == "--all" || t == "--regexp" || t == "--fixed-value" ||
			t == "-f" || t == "--file" || t == "--blob" || t == "--type" || t == "--default":
			// Options taking a value leave it as the next word, which is
			// then read as a name: harmless while reading.
		case hasAnyPrefix(t, "--file=", "--blob=", "--type=", "--default=", "--value=", "--url="):
		case strings.HasPrefix(t, "-"):
			return false // --add, --unset, --edit, --replace-all, ...
		}
	}
	return reading
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// SafeGitEnv returns env with entries added that keep git from running
// programs or reaching other repositories through configuration, for a
// git command that runs without the user's approval. Later entries win,
// so env's own GIT_CONFIG_* entries are kept and numbered before these:
//
//   - safe.bareRepository=explicit: git does not open a bare repository
//     it finds by walking up from the working directory (a committed
//     testdata/x.git with diff.external in its config);
//   - core.fsmonitor=false, core.hooksPath=/dev/null, core.pager=cat and
//     GIT_PAGER=cat: no monitor daemon, hook or pager program;
//   - protocol.allow=never, GIT_NO_LAZY_FETCH=1, core.sshCommand=false
//     and GIT_TERMINAL_PROMPT=0: no network, not even the lazy fetch of
//     a partial clone, and no prompt;
//   - log.showSignature=false and gpg.program, gpg.<format>.program and
//     gpg.ssh.defaultKeyCommand set to false: git log and git show check
//     no signature with a program the repository names, even when asked
//     to with --show-signature (the check then fails, harmlessly);
//   - diff.ignoreSubmodules=dirty and status.submoduleSummary=false: git
//     status and git diff do not run git inside a submodule's work tree,
//     where the submodule's own configuration could name programs.
//
// Keys with a name of the repository's choosing (filter.<driver>.clean,
// diff.<driver>.textconv, submodule.<name>.ignore) cannot be listed here;
// package safegit reads a repository's configuration and adds overrides
// for those it defines.
func SafeGitEnv(env []string) []string {
	n := 0
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c >= 0 && c < 1000 {
				n = c
			}
		}
	}
	out := slices.Clip(env)
	for _, kv := range safeGitConfig {
		out = append(out,
			"GIT_CONFIG_KEY_"+strconv.Itoa(n)+"="+kv[0],
			"GIT_CONFIG_VALUE_"+strconv.Itoa(n)+"="+kv[1])
		n++
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n),
		"GIT_PAGER=cat", "GIT_NO_LAZY_FETCH=1", "GIT_TERMINAL_PROMPT=0")
}

var safeGitConfig = [][2]string{
	{"safe.bareRepository", "explicit"},
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.sshCommand", "false"},
	{"protocol.allow", "never"},
	{"credential.helper", ""}, // empty resets the list of helpers
	{"log.showSignature", "false"},
	// gpg.program is the old name of gpg.openpgp.program: both are set.
	{"gpg.program", "false"},
	{"gpg.openpgp.program", "false"},
	{"gpg.x509.program", "false"},
	{"gpg.ssh.program", "false"},
	{"gpg.ssh.defaultKeyCommand", "false"},
	{"diff.ignoreSubmodules", "dirty"},
	{"status.submoduleSummary", "false"},
}
