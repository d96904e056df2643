package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// Sources named in reasons and errors.
const (
	SourceSettings     = "settings"
	SourceAllowedTools = "--allowed-tools"
	SourceExcludeTools = "--exclude-tools"
	SourceCoreTools    = "--core-tools"
	SourceSession      = "this session"
)

// RuleSet is the permissions block of one settings file.
type RuleSet struct {
	// Source names where the rules come from in reasons and errors, such
	// as "settings" or a file's path; "" means SourceSettings.
	Source string
	// Allow, Ask and Deny are lists of rules (permissions.allow, .ask,
	// .deny). Their order does not matter: deny beats ask beats allow.
	Allow, Ask, Deny []string
}

// Config is what a Policy is built from.
type Config struct {
	// Mode is the initial approval mode.
	Mode Mode
	// Workspace holds the roots that relative paths and path rules are
	// relative to, and inside which auto-edit allows writes. Required.
	Workspace *tools.Workspace
	// Settings holds the rule lists of every settings file in effect.
	Settings []RuleSet
	// AllowedTools are allow rules (--allowed-tools).
	AllowedTools []string
	// ExcludeTools are deny rules (--exclude-tools). A bare tool name
	// also keeps the tool from being offered to the model.
	ExcludeTools []string
	// CoreTools, when not empty, are the only tools offered (--core-tools).
	// An entry with a specifier, such as run_shell_command(git), offers
	// the tool but limits its calls to what the entries describe.
	CoreTools []string
	// HomeDir is what ~/ in path rules means; "" means os.UserHomeDir.
	HomeDir string
	// ReadOnlyProfile reports why the kernel cannot hold a shell command
	// to only reading (the shell tool's read-only profile), or nil when
	// it can. A command judged read-only runs unasked only under that
	// profile: where there is none it asks, as any other command does.
	// It is called once, by New; nil means no profile.
	ReadOnlyProfile func() error
	// WorkspaceSandbox reports why the kernel cannot hold a shell command
	// to the workspace (sandbox.WorkspacePolicy), or nil when it can. Auto
	// mode runs commands unasked only inside it: where there is none,
	// auto asks for commands as auto-edit does, whatever AllowUnconfined
	// says. It is called once, by New; nil means no sandbox.
	WorkspaceSandbox func() error
	// AllowUnconfined lets a command judged read-only run unasked where
	// the kernel has no read-only profile: the user accepted running such
	// commands unconfined (--allow-unsandboxed, or allowUnsandboxed in
	// the user's own settings).
	AllowUnconfined bool
}

// sourced is a rule and where it came from.
type sourced struct {
	rule   Rule
	source string
}

func (s sourced) String() string { return s.rule.String() + " from " + s.source }

// Policy is a scheduler.Policy and scheduler.AlwaysAllower for ply's
// approval modes and permission rules. It is safe for concurrent use: the
// mode and the session rules may change while calls are checked.
type Policy struct {
	ws    *tools.Workspace
	homes []string // the home directory as given and with links followed

	deny   []sourced
	ask    []sourced
	allow  []sourced
	hidden []sourced // bare deny rules: their tools are not offered
	core   []sourced // --core-tools; nil when not given
	coreOn bool

	mode       atomic.Int32
	unattended atomic.Bool // no one can approve (SetUnattended)

	// noProfile is why a command judged read-only cannot be confined
	// and so asks; nil when it can be, or the user accepted it unconfined.
	noProfile error
	// noSandbox is why auto mode cannot run commands in the workspace
	// sandbox and so asks for them; nil when it can.
	noSandbox error

	mu       sync.RWMutex
	session  []sourced
	granted  []sourced // Grant's rules, by source (grant.go)
	watchers []ModeWatcher
	withheld map[string]string // Withhold's tools, with why
}

// A ModeWatcher learns of every change of the approval mode, whoever made
// it: the session core keeps the system prompt and the tool list in step
// with the mode this way.
type ModeWatcher interface {
	ModeChanged(from, to Mode)
}

// Watch adds w to those told of every later change of mode. Watchers are
// told in the goroutine that changed the mode, after the change, in the
// order they were added.
func (p *Policy) Watch(w ModeWatcher) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watchers = append(p.watchers, w)
}

var (
	_ scheduler.Policy          = (*Policy)(nil)
	_ scheduler.ConfiningPolicy = (*Policy)(nil)
	_ scheduler.AlwaysAllower   = (*Policy)(nil)
)

// parseSourced parses texts as rules given by source; a rule that does
// not parse is left out and its error, naming source, returned.
func parseSourced(texts []string, source string, legacy bool) ([]sourced, []error) {
	var out []sourced
	var errs []error
	for _, t := range texts {
		r, err := parseRule(t, legacy)
		if err != nil {
			var re *RuleError
			if errors.As(err, &re) {
				re.Source = source
			}
			errs = append(errs, err)
			continue
		}
		out = append(out, sourced{r, source})
	}
	return out, errs
}

// New builds a Policy from cfg. Every rule that does not parse is reported,
// as a *RuleError in the returned error (errors.Join of them all); the
// Policy is still returned, built from the rules that did parse, so that
// the caller may warn and go on. A deny rule that does not parse denies
// nothing, so a caller that goes on should say so loudly. An invalid mode
// or a missing workspace is an error with a nil Policy.
func New(cfg Config) (*Policy, error) {
	if cfg.Workspace == nil {
		return nil, errors.New("permission: no workspace given")
	}
	if !cfg.Mode.valid() {
		return nil, fmt.Errorf("permission: %w: %d", ErrUnknownMode, int32(cfg.Mode))
	}
	p := &Policy{ws: cfg.Workspace, coreOn: len(cfg.CoreTools) > 0}
	p.mode.Store(int32(cfg.Mode))
	p.homes = homeDirs(cfg.HomeDir)
	if !cfg.AllowUnconfined {
		p.noProfile = errNoProfileProbe
		if cfg.ReadOnlyProfile != nil {
			p.noProfile = cfg.ReadOnlyProfile()
		}
	}

	p.noSandbox = errNoProfileProbe
	if cfg.WorkspaceSandbox != nil {
		p.noSandbox = cfg.WorkspaceSandbox()
	}

	var errs []error
	add := func(dst *[]sourced, texts []string, source string, legacy bool) {
		rs, es := parseSourced(texts, source, legacy)
		*dst = append(*dst, rs...)
		errs = append(errs, es...)
	}
	for _, rs := range cfg.Settings {
		src := rs.Source
		if src == "" {
			src = SourceSettings
		}
		add(&p.deny, rs.Deny, src, false)
		add(&p.ask, rs.Ask, src, false)
		add(&p.allow, rs.Allow, src, false)
	}
	add(&p.allow, cfg.AllowedTools, SourceAllowedTools, false)
	add(&p.deny, cfg.ExcludeTools, SourceExcludeTools, true)
	add(&p.core, cfg.CoreTools, SourceCoreTools, true)
	for _, d := range p.deny {
		if d.rule.kind == specNone {
			p.hidden = append(p.hidden, d)
		}
	}
	return p, errors.Join(errs...)
}

// homeDirs returns the directories ~/ stands for: as given and with links
// followed, since a path argument may be either.
func homeDirs(home string) []string {
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil // ~/ rules then match nothing
		}
		home = h
	}
	home, err := filepath.Abs(home)
	if err != nil {
		return nil
	}
	out := []string{filepath.Clean(home)}
	if real, err := filepath.EvalSymlinks(home); err == nil && real != out[0] {
		out = append(out, real)
	}
	return out
}

// Mode returns the current approval mode.
func (p *Policy) Mode() Mode { return Mode(p.mode.Load()) }

// SetMode changes the approval mode for every later Check (Shift+Tab in the
// TUI, set_permission_mode from an SDK). It fails only for an invalid Mode.
func (p *Policy) SetMode(m Mode) error {
	if !m.valid() {
		return fmt.Errorf("permission: %w: %d", ErrUnknownMode, int32(m))
	}
	from := Mode(p.mode.Swap(int32(m)))
	if from == m {
		return nil
	}
	p.mu.RLock()
	ws := slices.Clone(p.watchers)
	p.mu.RUnlock()
	for _, w := range ws {
		w.ModeChanged(from, m)
	}
	return nil
}

// Enabled implements scheduler.Policy: false for a tool excluded by
// --exclude-tools or a bare deny rule, left out of --core-tools, or
// withheld.
func (p *Policy) Enabled(name string) (bool, string) {
	p.mu.RLock()
	why, ok := p.withheld[name]
	p.mu.RUnlock()
	if ok {
		return false, why
	}
	for _, h := range p.hidden {
		if h.rule.appliesTo(name) {
			if h.source == SourceExcludeTools {
				return false, fmt.Sprintf("%s is excluded by %s", name, SourceExcludeTools)
			}
			return false, fmt.Sprintf("%s is denied by rule %s", name, h)
		}
	}
	if p.coreOn && !slices.ContainsFunc(p.core, func(c sourced) bool { return c.rule.appliesTo(name) }) {
		return false, fmt.Sprintf("%s is not among the tools enabled by %s", name, SourceCoreTools)
	}
	return true, ""
}

// Offered reports whether the tool named name should be offered to the
// model at all; the registry is filtered with it.
func (p *Policy) Offered(name string) bool {
	ok, _ := p.Enabled(name)
	return ok
}

// SessionRules returns the rules added by AllowAlways, in the order added.
func (p *Policy) SessionRules() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]string, len(p.session))
	for i, s := range p.session {
		out[i] = s.rule.String()
	}
	return out
}

// AllowAlways implements scheduler.AlwaysAllower: after the user answered
// "allow always" for c, later calls like it are allowed for the rest of the
// session. For a shell command that is a prefix rule per simple command
// not yet covered ("git status -s" gives Bash(git status:*)); a command
// with words known only at run time gives none, since no allow rule could
// cover it. For web_fetch it is the URL's host (WebFetch(domain:HOST)).
// For any other tool it is the tool's name.
func (p *Policy) AllowAlways(c *scheduler.Call) {
	texts, _ := p.AlwaysScope(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range texts {
		r, err := ParseRule(t)
		if err != nil {
			continue // only for names no rule can spell; nothing to remember
		}
		if !slices.ContainsFunc(p.session, func(s sourced) bool { return s.rule.text == r.text }) {
			p.session = append(p.session, sourced{r, SourceSession})
		}
	}
}

// allowRules returns the allow rules with the session's, as one list.
func (p *Policy) allowRules() []sourced {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if len(p.session) == 0 && len(p.granted) == 0 {
		return p.allow
	}
	return append(append(slices.Clip(p.allow), p.session...), p.granted...)
}

// errNoProfileProbe is why a policy that was not told whether the kernel
// has a read-only profile assumes it has none.
var errNoProfileProbe = errors.New("ply was not told that the kernel has one")

// MayAllow reports whether an allow rule (of the settings, the flags, the
// session or a grant) applies to the tool named name, so that some call
// of it the approval mode would ask for may run unasked.
func (p *Policy) MayAllow(name string) bool {
	return slices.ContainsFunc(p.allowRules(), func(s sourced) bool { return s.rule.appliesTo(name) })
}

// Withhold disables the tool named name for the rest of the session, as
// one that could not run anyway: a call of it is refused with why.
func (p *Policy) Withhold(name, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.withheld == nil {
		p.withheld = map[string]string{}
	}
	p.withheld[name] = why
}

// Unwithhold enables again the tool named name that Withhold disabled.
func (p *Policy) Unwithhold(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.withheld, name)
}

// ReadsAsk returns why a shell command judged to only read still asks
// (the kernel cannot confine it, and the user did not accept running it
// unconfined); nil when such commands run unasked.
func (p *Policy) ReadsAsk() error { return p.noProfile }

// SandboxMissing returns why auto mode cannot hold commands in the
// kernel's workspace sandbox, and so asks for them as auto-edit does; nil
// when it can.
func (p *Policy) SandboxMissing() error { return p.noSandbox }
