package mcp

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// ServerStatus describes one configured server, for `ply mcp list`.
type ServerStatus struct {
	Name      string
	Transport Transport
	// Target is the command line or the URL.
	Target   string
	Disabled bool
	Trusted  bool
	// Connected is true when the server answered and listed its tools;
	// otherwise Err says why not (nil for a disabled server).
	Connected bool
	Err       error
	// Elapsed is how long connecting and listing took.
	Elapsed time.Duration
	Tools   []ToolInfo
}

// ToolInfo is one tool of a server, after includeTools and excludeTools.
type ToolInfo struct {
	// Name is the ply name (mcp__server__tool); Remote the server's.
	Name     string
	Remote   string
	Summary  string // the first line of the description
	ReadOnly bool
}

// List connects to every server, lists its tools and disconnects. ctx
// bounds the whole; each server is also bounded by opts.ConnectTimeout.
func List(ctx context.Context, servers map[string]ServerConfig, opts Options) []ServerStatus {
	m := Start(ctx, servers, opts)
	defer func() { _ = m.Close() }()
	st := m.Status(ctx)
	for name, cfg := range servers {
		if cfg.Disabled {
			st = append(st, ServerStatus{Name: name, Transport: cfg.Transport, Target: target(cfg), Disabled: true, Trusted: cfg.Trust})
		}
	}
	slices.SortFunc(st, func(a, b ServerStatus) int { return strings.Compare(a.Name, b.Name) })
	return st
}

// Status waits as Tools does and describes each enabled server.
func (m *Manager) Status(ctx context.Context) []ServerStatus {
	ts, fails := m.Tools(ctx)
	byServer := map[string][]ToolInfo{}
	for _, t := range ts {
		mt := t.(*Tool)
		byServer[mt.Server()] = append(byServer[mt.Server()], ToolInfo{
			Name: mt.Name(), Remote: mt.RemoteName(), Summary: firstLine(mt.remote.Description), ReadOnly: mt.readOnly,
		})
	}
	failed := map[string]error{}
	for _, f := range fails {
		failed[f.Server] = f.Err
	}
	out := make([]ServerStatus, 0, len(m.names))
	for _, name := range m.names {
		s := m.servers[name]
		st := ServerStatus{Name: name, Transport: s.cfg.Transport, Target: target(s.cfg), Trusted: s.cfg.Trust, Tools: byServer[name]}
		if err, ok := failed[name]; ok {
			st.Err = err
		} else {
			st.Connected = true
			st.Elapsed = s.elapsed
		}
		out = append(out, st)
	}
	return out
}

func target(cfg ServerConfig) string {
	if cfg.URL != "" {
		return cfg.URL
	}
	parts := append([]string{cfg.Command}, cfg.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"'") {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, " ")
}

// FormatList writes statuses as `ply mcp list` shows them: one line per
// server, then its tools indented.
func FormatList(w io.Writer, statuses []ServerStatus) error {
	if len(statuses) == 0 {
		_, err := fmt.Fprintln(w, "No MCP servers configured.")
		return err
	}
	var b strings.Builder
	for _, st := range statuses {
		state := ""
		switch {
		case st.Disabled:
			state = "disabled"
		case st.Connected:
			state = fmt.Sprintf("connected, %d tool%s", len(st.Tools), plural(len(st.Tools)))
		default:
			state = "failed: " + indentRest(fmt.Sprint(st.Err), "      ")
		}
		trust := ""
		if st.Trusted {
			trust = " [trusted]"
		}
		fmt.Fprintf(&b, "%s (%s: %s)%s - %s\n", st.Name, st.Transport, st.Target, trust, state)
		for _, t := range st.Tools {
			ro := ""
			if t.ReadOnly {
				ro = " [read-only]"
			}
			if t.Summary != "" {
				fmt.Fprintf(&b, "    %s%s - %s\n", t.Name, ro, t.Summary)
			} else {
				fmt.Fprintf(&b, "    %s%s\n", t.Name, ro)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// indentRest indents every line of s after the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}
