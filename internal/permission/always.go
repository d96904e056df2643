package permission

import (
	"path"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/shell"
)

// AlwaysScope returns the rules that answering "allow always" to c adds
// for the session (what AllowAlways adds), and a phrase naming the calls
// they cover, for the approval dialog: "commands starting with `git
// status`", "every call of edit (any file)". No rules means that allowing
// always would remember nothing: the command has words known only at run
// time, or an ask rule catches the call (ask rules hold over allow rules).
func (p *Policy) AlwaysScope(c *scheduler.Call) (rules []string, desc string) {
	ci := newCallInfo(c)
	if _, ok := p.catch(p.ask, ci); ok {
		return nil, ""
	}
	if _, ok := p.shellPaths(ci); ok {
		return nil, "" // a path rule's question holds over allow rules too
	}
	if c.Name == ToolShell {
		rules, prefixes, scoped, exacts := p.sessionShellRules(ci)
		if len(rules) == 0 {
			return nil, ""
		}
		var descs []string
		if len(prefixes) > 0 {
			descs = append(descs, "commands starting with `"+strings.Join(prefixes, "` or `")+"`")
		}
		for _, s := range scoped {
			descs = append(descs, scopedDesc(s))
		}
		for _, e := range exacts {
			descs = append(descs, "exactly `"+e+"`")
		}
		return rules, strings.Join(descs, "; ")
	}
	if c.Name == ToolWebFetch {
		rules := sessionFetchRules(ci)
		if len(rules) == 0 {
			return nil, ""
		}
		host := strings.TrimSuffix(strings.TrimPrefix(rules[0], "WebFetch(domain:"), ")")
		return rules, "fetches from " + host
	}
	if _, err := ParseRule(c.Name); err != nil {
		return nil, "" // no rule can spell the name
	}
	desc = "every call of " + c.Name
	if len(ci.grants) > 0 {
		desc += ", each granting what it loads asks for (" + ci.grantName + ": " + strings.Join(ci.grants, ", ") + ")"
	}
	if ci.edits() {
		desc += " (any file)"
	}
	return []string{c.Name}, desc
}

// sessionShellRules returns the prefix rules that cover ci's command, one
// per simple command not covered yet ("git status -s" gives Bash(git
// status:*)), and each rule's prefix as a command line: in prefixes for
// plain rules, in scoped for rules limited to the workspace, which a
// program that deletes or overwrites files gets ("rm -rf build" gives
// Bash(@workspace rm:*)), and in exacts for the commands remembered
// exactly, which a program that runs another program gets ("sudo make
// install" gives Bash(sudo make install)).
func (p *Policy) sessionShellRules(ci *callInfo) (rules, prefixes, scoped, exacts []string) {
	cmds, err := shellCommands(ci.args.Command)
	if err != nil {
		return nil, nil, nil, nil
	}
	allow := p.allowRules()
	dirs, changes := p.lineDirs(ci, cmds)
	inside := func(sc shell.SimpleCommand) bool { return !changes && p.operandsInside(sc, dirs[0]) }
	for _, sc := range cmds {
		if len(sc.Args) == 0 || p.readOnlyAlone(ci, sc) || coveredByRule(allow, sc, inside) {
			continue
		}
		exact := runsAnother(sc)
		words := sessionPrefix(sc)
		if exact {
			words = commandWords(sc)
		}
		prefix := quoteWords(words)
		var t string
		switch {
		case exact:
			t = "Bash(" + prefix + ")"
		case overwrites(sc):
			t = "Bash(" + workspaceScope + " " + prefix + ":*)"
		default:
			t = "Bash(" + prefix + ":*)"
		}
		if slices.Contains(rules, t) {
			continue
		}
		rules = append(rules, t)
		switch {
		case exact:
			exacts = append(exacts, prefix)
		case overwrites(sc):
			scoped = append(scoped, prefix)
		default:
			prefixes = append(prefixes, prefix)
		}
	}
	return rules, prefixes, scoped, exacts
}

func quoteWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = quoteWord(w)
	}
	return strings.Join(quoted, " ")
}

// runsAnother reports whether sc runs a program named among its
// arguments (sudo, xargs, env, nice, sh -c, eval, ...): a prefix rule for
// it would allow every program, so "allow always" remembers the exact
// command.
func runsAnother(sc shell.SimpleCommand) bool {
	prog := path.Base(sc.Args[0])
	switch prog {
	case "eval", "source", ".", "trap":
		return true
	}
	return wrappers[prog] || shells[prog]
}
