package permission

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// granting is implemented by a tool whose call grants allow rules when it
// runs (the skill tool: a skill's allowed-tools). Such a call is not a
// plain read: the policy asks before it, naming what it grants.
type granting interface {
	// Grants returns what the call with args would load and the rules
	// it would grant; no rules for a call that grants nothing.
	Grants(args json.RawMessage) (name string, rules []string)
}

// SetUnattended tells the policy that no one can answer its questions
// (a headless run without an approver). A call that grants rules is then
// allowed as the read it also is, confined: the tool, seeing the
// confinement, runs without granting anything.
func (p *Policy) SetUnattended(on bool) { p.unattended.Store(on) }

// grantDecision decides a call that would grant rules and that no rule
// decided: it asks, naming the rules, or with no one to ask allows it
// confined.
func (p *Policy) grantDecision(ci *callInfo) decision {
	if p.unattended.Load() {
		d := allow("%s %s is loaded without granting %s: no one can approve that in this mode", ci.name, ci.grantName, strings.Join(ci.grants, ", "))
		d.confine = tools.ConfineReadOnly
		return d
	}
	return ask("loading %s %s lets these run without asking until the user's next prompt: %s", ci.name, ci.grantName, strings.Join(ci.grants, ", "))
}

// Grant adds allow rules on behalf of source (an active skill, say "skill
// review") until Revoke(source). Like every allow rule they never
// override a deny or ask rule, plan mode, or the .git guard. Rules that
// do not parse are reported and the others are still granted. A second
// Grant for the same source replaces the first.
func (p *Policy) Grant(source string, rules []string) error {
	add, errs := parseSourced(rules, source, false)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.granted = slices.DeleteFunc(p.granted, func(s sourced) bool { return s.source == source })
	p.granted = append(p.granted, add...)
	return errors.Join(errs...)
}

// Revoke removes the rules granted on behalf of source.
func (p *Policy) Revoke(source string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.granted = slices.DeleteFunc(p.granted, func(s sourced) bool { return s.source == source })
}
