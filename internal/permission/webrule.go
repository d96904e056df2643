package permission

import (
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// Fetching sends the URL, and whatever the model put into it, off the
// machine: no mode but yolo lets web_fetch run unasked. The rules
// WebFetch(domain:HOST) decide per host, and "allow always" adds one for
// the host of the call it answers.

// fetchDefault decides a fetch no rule decided, in a mode other than yolo.
// The reason carries the whole URL, query string included, for the user
// who must judge what leaves the machine.
func fetchDefault(mode Mode, ci *callInfo) decision {
	if ci.args.URL == "" {
		return ask("approval mode %s asks before %s sends a request off the machine", mode, ci.name)
	}
	host, _ := urlHost(ci.args.URL)
	return ask("approval mode %s asks before %s sends a request off the machine, to %s: %q (allow always: WebFetch(domain:%s))",
		mode, ci.name, host, ci.args.URL, host)
}

// isFetch reports whether the call fetches from the network.
func (ci *callInfo) isFetch() bool {
	return ci.kind == tools.KindFetch || ci.name == ToolWebFetch
}

// sessionFetchRules returns the rule "allow always" adds for a fetch: its
// URL's host, exactly (not its subdomains, nor its parent). A URL without
// a host gives none.
func sessionFetchRules(ci *callInfo) []string {
	host, ok := urlHost(ci.args.URL)
	if !ok {
		return nil
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return []string{"WebFetch(domain:" + host + ")"}
}
