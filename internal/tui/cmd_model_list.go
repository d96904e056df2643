package tui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/spell"
)

// EndpointModelLister asks the provider's endpoint which models it serves
// (/model lists them, and switches to one of them without --force).
type EndpointModelLister interface {
	EndpointModels(ctx context.Context) ([]string, error)
}

// pickListed is /model where the endpoint can be asked for its models:
// the list, a number past the configured models, or a name they lack are
// answered once the endpoint has; anything else (handled false) is
// pickModel's as before.
func (m *model) pickListed(l EndpointModelLister, arg string, configured []string) (tea.Cmd, bool) {
	if strings.HasPrefix(arg, "--force ") {
		return nil, false
	}
	name := strings.TrimSpace(arg)
	n, numErr := strconv.Atoi(name)
	switch {
	case name == "":
	case numErr == nil && n <= len(configured):
		return nil, false
	case numErr != nil && slices.Contains(configured, name):
		return nil, false
	}
	ctx := m.base
	return func() tea.Msg {
		listed, err := l.EndpointModels(ctx)
		return funcMsg(func(m *model) tea.Cmd { return m.listedModels(name, configured, listed, err) })
	}, true
}

// listedModels finishes /model with the endpoint's answer.
func (m *model) listedModels(name string, configured, listed []string, err error) tea.Cmd {
	all := slices.Clone(configured)
	for _, id := range listed {
		if !slices.Contains(all, id) {
			all = append(all, id)
		}
	}
	note := ""
	if err != nil {
		note = m.st.dim.Render("  " + oneLine(err.Error()))
	}
	if name == "" {
		out := m.modelList(all)
		if len(listed) > 0 {
			out += "\n" + m.st.dim.Render(fmt.Sprintf("  (%d served by the endpoint)", len(listed)))
		}
		if note != "" {
			out += "\n" + note
		}
		return m.commit(out)
	}
	if n, e := strconv.Atoi(name); e == nil {
		if n < 1 || n > len(all) {
			return m.commit(joinLines(m.st.err.Render(fmt.Sprintf("✗ no model number %d: /model lists 1 to %d", n, len(all))), note))
		}
		return m.pickModel("--force " + all[n-1])
	}
	if slices.Contains(listed, name) {
		return m.pickModel("--force " + name)
	}
	msg := "✗ " + name + " is not a model this endpoint lists"
	if near := spell.Closest(name, all, 3, spell.Lower, func(c string, d int) bool {
		return d <= max(2, len(c)/3) || strings.Contains(c, spell.Lower(name))
	}); len(near) > 0 {
		msg += ": did you mean " + strings.Join(near, ", ") + "?"
	}
	return m.commit(joinLines(m.st.err.Render(msg), note,
		m.st.dim.Render("  /model --force "+name+" sends it to the provider as it is")))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func joinLines(ls ...string) string {
	var out []string
	for _, l := range ls {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
