package permission

import (
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/scheduler"
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
	if c.Name == ToolShell {
		rules, prefixes := p.sessionShellRules(ci)
		if len(rules) == 0 {
			return nil, ""
		}
		return rules, "commands starting with `" + strings.Join(prefixes, "` or `") + "`"
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
	if ci.edits() {
		desc += " (any file)"
	}
	return []string{c.Name}, desc
}

// sessionShellRules returns the prefix rules that cover ci's command, one
// per simple command not covered yet ("git status -s" gives Bash(git
// status:*)), and each rule's prefix as a command line.
func (p *Policy) sessionShellRules(ci *callInfo) (rules, prefixes []string) {
	cmds, err := shellCommands(ci.args.Command)
	if err != nil {
		return nil, nil
	}
	allow := p.allowRules()
	for _, sc := range cmds {
		if len(sc.Args) == 0 || p.readOnlyAlone(ci, sc) || coveredByRule(allow, sc) {
			continue
		}
		words := sessionPrefix(sc)
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = quoteWord(w)
		}
		prefix := strings.Join(quoted, " ")
		if t := "Bash(" + prefix + ":*)"; !slices.Contains(rules, t) {
			rules, prefixes = append(rules, t), append(prefixes, prefix)
		}
	}
	return rules, prefixes
}
