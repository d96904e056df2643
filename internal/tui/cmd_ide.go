package tui

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/info"
)

func init() {
	registerCommand(slashCommand{name: "/ide", help: "[status|enable|disable]  the connection to the editor ply runs in (its companion extension)", run: (*model).ideCommand})
}

// IDEController is the connection to the editor ply runs in: /ide shows
// and switches it, the footer says when it is up.
type IDEController interface {
	IDEStatus() info.IDE
	IDEConnected() bool
	SetIDE(ctx context.Context, on bool) info.IDE
}

func (m *model) ideCommand(arg string) tea.Cmd {
	s, ok := probe[IDEController](m)
	if !ok {
		return m.commit("/ide is not available in this session")
	}
	switch strings.ToLower(strings.TrimSpace(arg)) {
	case "", "status":
		return m.commit(m.ideText(s.IDEStatus()))
	case "enable", "disable":
		on := strings.EqualFold(strings.TrimSpace(arg), "enable")
		base := m.base
		// Connecting reads files and waits on the network: off the UI
		// goroutine.
		return func() tea.Msg {
			st := s.SetIDE(base, on)
			return funcMsg(func(m *model) tea.Cmd { return m.commit(m.ideText(st)) })
		}
	}
	return m.commit(m.st.err.Render("✗ /ide takes status, enable or disable"))
}

// ideText says the connection's state, and what the model is told.
func (m *model) ideText(st info.IDE) string {
	var b strings.Builder
	for _, n := range st.Notices {
		b.WriteString(m.st.warn.Render(sanitize("⚠ "+n)) + "\n")
	}
	switch {
	case !st.Available:
		b.WriteString(sanitize(st.Detail))
	case st.Connected:
		b.WriteString(m.st.ok.Render("● IDE connected") + sanitize(" to "+cmp.Or(st.Name, "the IDE")))
		if st.Diffing {
			b.WriteString("\n  file changes that need approval also open in the editor's diff view: accept or reject there, or answer here")
		}
		if st.ActiveFile != "" {
			b.WriteString(sanitize(fmt.Sprintf("\n  active file: %s", st.ActiveFile)))
			if st.Cursor != "" {
				b.WriteString(sanitize(" (" + st.Cursor + ")"))
			}
		}
		if st.OpenFiles > 0 {
			b.WriteString(fmt.Sprintf("\n  %d open file(s) reported; what changed goes with each of your messages", st.OpenFiles))
		}
	case st.Connecting:
		b.WriteString("IDE: connecting…")
	default:
		b.WriteString("○ IDE not connected")
		if st.Detail != "" {
			b.WriteString(sanitize(": " + st.Detail))
		}
	}
	return b.String()
}
