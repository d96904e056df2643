package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/spell"
)

// pickModel is /model: with no argument it lists the models to choose
// from; with a number or a name it switches. A name not in the list is
// refused with the closest ones, unless --force says it is meant.
func (m *model) pickModel(arg string) tea.Cmd {
	var models []string
	if s, ok := probe[ModelLister](m); ok {
		for _, md := range s.Models() {
			models = append(models, md.ID)
		}
	}
	if l, ok := probe[EndpointModelLister](m); ok {
		if cmd, asked := m.pickListed(l, arg, models); asked {
			return cmd // cmd_model_list.go
		}
	}
	if arg == "" {
		return m.commit(m.modelList(models))
	}
	name, force := strings.CutPrefix(arg, "--force ")
	name = strings.TrimSpace(name)
	if n, err := strconv.Atoi(name); err == nil && !force && len(models) > 0 {
		if n < 1 || n > len(models) {
			return m.commit(m.st.err.Render(fmt.Sprintf("✗ no model number %d: /model lists 1 to %d", n, len(models))))
		}
		name = models[n-1]
	} else if len(models) > 0 && !force && !slices.Contains(models, name) {
		msg := "✗ unknown model " + name
		if near := spell.Closest(name, models, 3, spell.Lower, func(c string, d int) bool {
			return d <= max(2, len(c)/3) || strings.Contains(c, spell.Lower(name))
		}); len(near) > 0 {
			msg += ": did you mean " + strings.Join(near, ", ") + "?"
		} else {
			msg += " (see /model for the list)"
		}
		return m.commit(m.st.err.Render(msg) + "\n" + m.st.dim.Render("  /model --force "+name+" sends it to the provider as it is"))
	}
	ms := m.models()
	if ms == nil {
		return m.unavailable("/model")
	}
	if err := ms.SetModel(name); err != nil {
		return m.commit(m.st.err.Render("✗ " + err.Error()))
	}
	m.cfg.Model = name
	return m.commit(m.st.dim.Render("model set to " + name + " (from the next request on)"))
}

func (m *model) modelList(models []string) string {
	var b strings.Builder
	b.WriteString("model: " + m.cfg.Model)
	if len(models) == 0 {
		return b.String()
	}
	b.WriteString("\nModels of the configured providers (/model N or /model NAME to switch):")
	for i, name := range models {
		cur := ""
		if name == m.cfg.Model {
			cur = m.st.dim.Render("  (current)")
		}
		fmt.Fprintf(&b, "\n  %d. %s%s", i+1, sanitize(name), cur)
	}
	return b.String()
}
