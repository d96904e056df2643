package permission

import (
	"fmt"
	"slices"
)

// ListedRule is one rule as /permissions shows it: its list ("allow",
// "ask", "deny"), its text and where it comes from.
type ListedRule struct{ List, Rule, Source string }

// Rules lists every rule in force: deny, then ask, then allow (the order
// they are consulted), the session's allow rules last.
func (p *Policy) Rules() []ListedRule {
	var out []ListedRule
	add := func(list string, rs []sourced) {
		for _, s := range rs {
			out = append(out, ListedRule{list, s.rule.String(), s.source})
		}
	}
	add("deny", p.deny)
	add("ask", p.ask)
	add("allow", p.allowRules())
	return out
}

// AddSessionAllow adds an allow rule for the rest of the session, as
// "allow always" in the approval dialog does.
func (p *Policy) AddSessionAllow(text string) error {
	r, err := ParseRule(text)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.ContainsFunc(p.session, func(s sourced) bool { return s.rule.text == r.text }) {
		return fmt.Errorf("%s is allowed for this session already", r.text)
	}
	p.session = append(p.session, sourced{r, SourceSession})
	return nil
}

// RemoveSessionAllow removes an allow rule added for the session. Rules
// from settings files stay: they are removed by editing the file.
func (p *Policy) RemoveSessionAllow(text string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.session, func(s sourced) bool { return s.rule.text == text })
	if i < 0 {
		return fmt.Errorf("%s is not a rule added in this session (rules from settings files are removed by editing the file)", text)
	}
	p.session = slices.Delete(p.session, i, i+1)
	return nil
}
