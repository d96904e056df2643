package tui

import "strings"

// noteDenial keeps the reason the user gave for denying the call id on
// its card, which shows it in full: the reason is what the model is told,
// and the user should see what was said.
func (m *model) noteDenial(id, reason string) {
	if reason == "" {
		return
	}
	for _, c := range m.cards {
		if c.id == id {
			c.denied = reason
		}
	}
}

// deniedLines draws a denied card's reason, wrapped on words to width.
func (m *model) deniedLines(c *callView, width int) string {
	lines := wrapIndent("denied: ", sanitize(strings.Join(strings.Fields(c.denied), " ")), width)
	for i, l := range lines {
		lines[i] = m.st.warn.Render(l)
	}
	return "\n  ⎿ " + strings.Join(lines, "\n    ")
}
