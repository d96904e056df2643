package permission

import (
	"errors"
	"slices"
)

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
