package mcp

import (
	"github.com/plyhq/ply/internal/tools"
)

// Names returns the enabled servers' names, sorted.
func (m *Manager) Names() []string { return append([]string(nil), m.names...) }

// Started returns a channel closed once the server named name has
// connected and listed its tools, or failed; nil for a name not started.
func (m *Manager) Started(name string) <-chan struct{} {
	if s, ok := m.servers[name]; ok {
		return s.done
	}
	return nil
}

// ReadyTools is Tools without waiting: the tools of the servers whose
// start has finished and one Failure per one that failed, with pending
// naming those still starting. Names are disambiguated in server order
// among the finished servers.
func (m *Manager) ReadyTools() (out []tools.Tool, fails []Failure, pending []string) {
	taken := map[string]bool{}
	for _, name := range m.names {
		s := m.servers[name]
		select {
		case <-s.done:
		default:
			pending = append(pending, name)
			continue
		}
		if s.err != nil {
			fails = append(fails, Failure{Server: name, Err: s.err})
			continue
		}
		for _, t := range s.filtered() {
			n := uniqueName(ToolName(s.cfg.ID, t.Name), s.cfg.Name+"\x00"+t.Name, taken)
			taken[n] = true
			out = append(out, newTool(m, s, t, n))
		}
	}
	return out, fails, pending
}
