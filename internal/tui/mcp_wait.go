package tui

import (
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// MCPWaiter names the MCP servers still connecting behind the UI, with a
// channel closed when that changes (a session whose servers connect in
// the background).
type MCPWaiter interface {
	MCPConnecting() ([]string, <-chan struct{})
}

// mcpWaitMsg names the servers still connecting.
type mcpWaitMsg struct{ names []string }

// watchMCP tells the program which MCP servers are still connecting, at
// start and at every change, until none is or stop is closed.
func (u *UI) watchMCP(stop <-chan struct{}) {
	w, ok := u.cfg.Session.(MCPWaiter)
	if !ok {
		return
	}
	for {
		names, changed := w.MCPConnecting()
		u.send(mcpWaitMsg{names: names})
		if changed == nil || len(names) == 0 {
			return
		}
		select {
		case <-changed:
		case <-stop:
			return
		}
	}
}

// watchBoth runs the inbox's and the MCP servers' watchers until stop.
func (u *UI) watchBoth(stop <-chan struct{}) {
	var wg sync.WaitGroup
	wg.Go(func() { u.watchMCP(stop) })
	u.watchInbox(stop)
	wg.Wait()
}

// connectingLine is the footer's line while MCP servers connect.
func (m *model) connectingLine() string {
	if len(m.mcpWait) == 0 {
		return ""
	}
	return "\n" + m.st.dim.Render(abbreviate("connecting MCP servers: "+strings.Join(m.mcpWait, ", ")+" (their tools join when they connect)", m.width-1))
}

// connectingNotice tells the user, as a prompt goes, that the model does
// not have the tools of the servers still connecting.
func (m *model) connectingNotice() tea.Cmd {
	if len(m.mcpWait) == 0 {
		return nil
	}
	return m.commit(m.st.dim.Render("MCP servers still connecting: " + sanitize(strings.Join(m.mcpWait, ", ")) + " — this prompt goes without their tools; they join when the servers connect"))
}
