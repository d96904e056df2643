package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/shell"
	"github.com/plyhq/ply/internal/tools"
)

// planModeReason is the model's explanation for a call denied in plan mode.
const planModeReason = "the session is in plan mode: only tools that read or search, and commands that only read, may run. " +
	"Do not edit files or run other commands yet; present your plan (call " + ToolExitPlanMode +
	" with it) and wait for the user to approve it."

// callArgs are the arguments rules look at, as the tools name them.
type callArgs struct {
	Command      string   `json:"command"`
	FilePath     string   `json:"file_path"`
	Path         string   `json:"path"`
	Paths        []string `json:"paths"`
	URL          string   `json:"url"`
	IsBackground bool     `json:"is_background"`
	Directory    string   `json:"directory"` // the shell's working directory
	// RunOutsideSandbox and Justification are the shell's request to run
	// a command outside the sandbox auto mode would run it in.
	RunOutsideSandbox bool   `json:"run_outside_sandbox"`
	Justification     string `json:"justification"`
}

// callInfo is one call as the policy sees it.
type callInfo struct {
	name string
	kind tools.Kind
	args callArgs
	// argsOK is false when the arguments did not decode into callArgs (a
	// field of an unexpected type): allow rules then cover nothing.
	argsOK bool
	// resolved caches the resolved path arguments, in paths() order; nil
	// until first needed.
	resolved []resolvedPath
	// shell caches what is known about a shell command; nil until first
	// needed.
	shell *shellInfo
	// grants are the rules the call would grant when it runs, and
	// grantName what it loads (granting).
	grants    []string
	grantName string
}

func newCallInfo(c *scheduler.Call) *callInfo {
	ci := &callInfo{name: c.Name, kind: tools.KindOther, argsOK: true}
	if c.Tool != nil {
		ci.kind = c.Tool.Kind()
	}
	if len(c.Params) > 0 {
		ci.argsOK = json.Unmarshal(c.Params, &ci.args) == nil
	}
	if g, ok := c.Tool.(granting); ok {
		ci.grantName, ci.grants = g.Grants(c.Params)
	}
	return ci
}

// edits reports whether the call edits or creates the files its path
// arguments name: what auto-edit allows.
func (ci *callInfo) edits() bool {
	return families[ci.name] == "write" || ci.kind == tools.KindEdit
}

// writes reports whether the call changes the files its path arguments
// name in any way, deleting and moving included: what .git is kept from.
func (ci *callInfo) writes() bool {
	return ci.edits() || ci.kind == tools.KindDelete || ci.kind == tools.KindMove
}

// paths returns the call's path arguments.
func (ci *callInfo) paths() []string {
	var out []string
	for _, p := range append([]string{ci.args.FilePath, ci.args.Path}, ci.args.Paths...) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// resolvedPaths returns the call's path arguments resolved, computing them
// once per call however many rules look at them.
func (p *Policy) resolvedPaths(ci *callInfo) []resolvedPath {
	if ci.resolved == nil {
		ci.resolved = []resolvedPath{} // not nil: computed, maybe empty
		for _, arg := range ci.paths() {
			ci.resolved = append(ci.resolved, p.resolvePath(arg))
		}
	}
	return ci.resolved
}

// decision is a verdict with its reason for the model.
type decision struct {
	verdict scheduler.Verdict
	reason  string
	// confine marks an allow that rests on the kernel's profile: on
	// judging a shell command read-only (tools.ConfineReadOnly), or on
	// auto mode's workspace sandbox (tools.ConfineWorkspace).
	confine tools.Confinement
}

func deny(format string, args ...any) decision {
	return decision{verdict: scheduler.VerdictDeny, reason: fmt.Sprintf(format, args...)}
}

func ask(format string, args ...any) decision {
	return decision{verdict: scheduler.VerdictAsk, reason: fmt.Sprintf(format, args...)}
}

func allow(format string, args ...any) decision {
	return decision{verdict: scheduler.VerdictAllow, reason: fmt.Sprintf(format, args...)}
}

// Check implements scheduler.Policy. In order: a call outside what
// --core-tools allows, a call caught by a deny rule, a write inside .git,
// and in plan mode anything but reading, are denied; then a call caught by
// an ask rule asks; then a call covered by an allow rule is allowed; and
// otherwise the mode decides.
func (p *Policy) Check(_ context.Context, c *scheduler.Call) (scheduler.Verdict, string) {
	d := p.decide(newCallInfo(c))
	return d.verdict, d.reason
}

// CheckConfined implements scheduler.ConfiningPolicy: Check, and how the
// kernel must hold an allow that rests on its profile.
func (p *Policy) CheckConfined(_ context.Context, c *scheduler.Call) (scheduler.Verdict, string, tools.Confinement) {
	d := p.decide(newCallInfo(c))
	return d.verdict, d.reason, d.confine
}

func (p *Policy) decide(ci *callInfo) decision {
	if d, ok := p.coreLimit(ci); !ok {
		return d
	}
	if s, ok := p.catch(p.deny, ci); ok {
		return deny("denied by rule %s%s", s, ci.opaqueNote())
	}
	paths, pathsOK := p.shellPaths(ci)
	if pathsOK && paths.verdict == scheduler.VerdictDeny {
		return paths
	}
	if ci.writes() {
		for i, rp := range p.resolvedPaths(ci) {
			if inGitDir(rp.lexical) || inGitDir(rp.real) {
				return deny("%s is inside a .git directory, which no tool may write: git runs hooks and reads configuration from it. Change the repository with git commands instead", ci.paths()[i])
			}
		}
	}
	mode := p.Mode()
	if mode == ModePlan && !ci.kind.ReadOnly() && ci.kind != tools.KindAgent && ci.name != ToolExitPlanMode && !p.readOnlyShell(ci) {
		return deny("%s", planModeReason)
	}
	if s, ok := p.catch(p.ask, ci); ok {
		return ask("rule %s requires the user's approval%s", s, ci.opaqueNote())
	}
	if pathsOK {
		return paths // a path rule's question holds over allow rules and modes
	}
	if s, ok := p.permit(p.allowRules(), ci); ok {
		return allow("allowed by rule %s", s)
	}
	return p.modeDefault(mode, ci)
}

// modeDefault decides a call no rule decided.
func (p *Policy) modeDefault(mode Mode, ci *callInfo) decision {
	switch {
	case mode == ModeYOLO:
		return allow("approval mode %s allows every call", mode)
	case ci.isFetch():
		return fetchDefault(mode, ci)
	case ci.name == ToolExitPlanMode && mode == ModePlan:
		return ask("leaving plan mode needs the user's approval of the plan")
	case len(ci.grants) > 0:
		return p.grantDecision(ci)
	case ci.kind.ReadOnly():
		return allow("%s only reads", ci.name)
	case ci.kind == tools.KindAgent:
		// The subagent's own calls meet this same policy one by one.
		return allow("%s delegates; each call its subagent makes is checked", ci.name)
	case ci.name == ToolShell:
		return p.shellDefault(mode, ci)
	case (mode == ModeAutoEdit || mode == ModeAuto) && ci.edits():
		paths := ci.paths()
		if !ci.argsOK || len(paths) == 0 {
			return ask("approval mode %s allows edits of workspace files only, and %s names no file", mode, ci.name)
		}
		for i, arg := range paths {
			abs, err := p.ws.Resolve(arg)
			if err != nil {
				return ask("approval mode %s allows edits inside the workspace only: %v", mode, err)
			}
			// The write lands on the file a link points to: both names count.
			what := p.agentConfig(abs)
			if real := p.resolvedPaths(ci)[i].real; what == "" {
				what = p.agentConfig(real)
				if real == "" {
					what = "a path whose links cannot be followed"
				}
			}
			if what != "" {
				return ask("%s is %s: approval mode %s does not write it unasked", arg, what, mode)
			}
		}
		return allow("approval mode %s allows edits inside the workspace", mode)
	}
	return ask("approval mode %s asks before tools that %s", mode, kindDoes(ci.kind))
}

// readOnlyShell reports whether ci is a foreground shell command known to
// only read: default mode runs it unasked (confined), and so may plan mode,
// where looking around (ls, git status) is the point.
func (p *Policy) readOnlyShell(ci *callInfo) bool {
	return ci.name == ToolShell && ci.argsOK && !ci.args.IsBackground && p.shellReadOnly(ci)
}

// kindDoes describes what tools of kind k do, for reasons.
func kindDoes(k tools.Kind) string {
	switch k {
	case tools.KindEdit:
		return "edit files"
	case tools.KindDelete:
		return "delete files"
	case tools.KindMove:
		return "move files"
	case tools.KindExecute:
		return "run commands"
	}
	return "may change something"
}

// coreLimit enforces the specifiers of --core-tools: a tool listed only
// with specifiers may make only the calls they cover.
func (p *Policy) coreLimit(ci *callInfo) (decision, bool) {
	if !p.coreOn {
		return decision{}, true
	}
	var limits []sourced
	for _, c := range p.core {
		if !c.rule.appliesTo(ci.name) {
			continue
		}
		if c.rule.kind == specNone {
			return decision{}, true
		}
		limits = append(limits, c)
	}
	if len(limits) == 0 {
		return deny("%s is not among the tools enabled by %s", ci.name, SourceCoreTools), false
	}
	if _, ok := p.permit(limits, ci); ok {
		return decision{}, true
	}
	texts := make([]string, len(limits))
	for i, l := range limits {
		texts[i] = l.rule.String()
	}
	return deny("%s limits %s to %s, and this call is not one of them", SourceCoreTools, ci.name, strings.Join(texts, ", ")), false
}

// catch returns the first rule of rules that catches the call: for a shell
// command, any part of it matching is enough; for paths, any path, as
// written or resolved.
func (p *Policy) catch(rules []sourced, ci *callInfo) (sourced, bool) {
	for _, s := range rules {
		r := &s.rule
		if !r.appliesTo(ci.name) {
			continue
		}
		switch r.kind {
		case specNone:
			return s, true
		case specShell:
			if sh := ci.shellInfo(); sh.opaque != "" || slices.ContainsFunc(sh.views, r.shell.match) {
				return s, true
			}
		case specPath:
			for _, rp := range p.resolvedPaths(ci) {
				if p.matchPath(r.path, rp.lexical) || (rp.real != "" && p.matchPath(r.path, rp.real)) {
					return s, true
				}
			}
		case specDomain:
			if host, ok := urlHost(ci.args.URL); ok && matchDomain(r.domain, host) {
				return s, true
			}
		}
	}
	return sourced{}, false
}

// permit returns a rule of rules that covers the whole call: for a shell
// command, every simple command must be covered by some rule (or be
// read-only on its own); for paths, every path, after following links.
// Arguments that did not decode cover nothing.
func (p *Policy) permit(rules []sourced, ci *callInfo) (sourced, bool) {
	var shellRules []sourced
	for _, s := range rules {
		r := &s.rule
		if !r.appliesTo(ci.name) {
			continue
		}
		if r.kind == specNone {
			return s, true
		}
		if !ci.argsOK {
			continue
		}
		switch r.kind {
		case specShell:
			shellRules = append(shellRules, s)
		case specPath:
			paths := p.resolvedPaths(ci)
			if len(paths) > 0 && !slices.ContainsFunc(paths, func(rp resolvedPath) bool {
				return rp.real == "" || !p.matchPath(r.path, rp.real)
			}) {
				return s, true
			}
		case specDomain:
			if host, ok := urlHost(ci.args.URL); ok && matchDomain(r.domain, host) {
				return s, true
			}
		}
	}
	if len(shellRules) == 0 || ci.shellInfo().opaque != "" {
		return sourced{}, false
	}
	cmds, err := shellCommands(ci.args.Command)
	if err != nil {
		return sourced{}, false
	}
	// Each part is judged in every directory it may run in. git in a
	// repository other than the workspace's, or after a change of
	// directory, is never covered: that repository's configuration came
	// with the files, and can name programs git runs.
	dirs, changes := p.lineDirs(ci, cmds)
	inside := func(sc shell.SimpleCommand) bool { return !changes && p.operandsInside(sc, dirs[0]) }
	var first *sourced
	for _, sc := range cmds {
		if isGit(sc) && (changes || p.otherRepo(dirs[0])) {
			return sourced{}, false
		}
		if r := coveringRule(shellRules, sc, inside); r != nil {
			if first == nil {
				first = r
			}
		} else if !p.readOnlyAloneIn(dirs, sc) {
			return sourced{}, false
		}
	}
	if first == nil {
		return sourced{}, false // nothing but read-only parts: the mode decides
	}
	return *first, true
}

// shellCommands parses a command line for allow rules: an empty line or
// one with words known only at run time cannot be covered.
func shellCommands(command string) ([]shell.SimpleCommand, error) {
	cmds, err := shell.SimpleCommands(command)
	if err != nil {
		return nil, fmt.Errorf("permission: %w", err)
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("permission: empty command")
	}
	return cmds, nil
}

// coveringRule returns the shell rule that covers one simple command. A
// command that only assigns variables (PATH=...) or only redirects is
// never covered: it changes what the commands after it do. A rule
// limited to the workspace covers sc only when inside(sc) holds.
func coveringRule(rules []sourced, sc shell.SimpleCommand, inside func(shell.SimpleCommand) bool) *sourced {
	if len(sc.Args) == 0 || !safeRedirects(sc.Redirects) {
		return nil
	}
	words := commandWords(sc)
	for i := range rules {
		r := &rules[i].rule
		if r.kind == specShell && r.appliesTo(ToolShell) && r.shell.covers(sc, words) && (!r.shell.workspace || inside(sc)) {
			return &rules[i]
		}
	}
	return nil
}

// coveredByRule reports whether some allow rule covers sc.
func coveredByRule(rules []sourced, sc shell.SimpleCommand, inside func(shell.SimpleCommand) bool) bool {
	for _, r := range rules {
		if r.rule.appliesTo(ToolShell) && r.rule.kind == specNone {
			return true
		}
	}
	return coveringRule(rules, sc, inside) != nil
}

// matchPath matches a resolved path against a pattern's anchors.
func (p *Policy) matchPath(pp *pathPattern, path string) bool {
	switch pp.anchor {
	case anchorHome:
		return pp.match(path, p.homes)
	case anchorFS:
		return pp.match(path, []string{"/"})
	}
	return pp.match(path, p.ws.Roots())
}

// urlHost returns the host name of a URL argument. A URL without a scheme
// is read as https, as a fetch tool would, so that "evil.example/x" is
// still caught by a rule for evil.example.
func urlHost(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err == nil && u.Hostname() == "" && !strings.Contains(raw, "://") {
		u, err = url.Parse("https://" + raw)
	}
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	return u.Hostname(), true
}
