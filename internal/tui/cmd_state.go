package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/llm"
)

// Extra is what the commands of the cmd_*.go files are given beyond
// the session they probe (session.go).
type Extra struct {
	// Custom are the custom slash commands (internal/customcmd).
	Custom []customcmd.Command
	// Theme is the theme at start ("dark", "light" or "").
	Theme string
	// Now, when set, is the clock (/export's file name); tests fix it.
	Now func() time.Time
	// IdleDelay is how long the UI waits for the user's input after the
	// agent finished before it tells the session (IdleNotifier);
	// default DefaultIdleDelay.
	IdleDelay time.Duration
}

// cmdState is the state of the commands of the cmd_*.go files.
type cmdState struct {
	// shellContext holds the output of !cmd commands not sent yet: it
	// goes before the next prompt.
	shellContext []llm.Part
	// shellRunning: a !cmd or a custom command's shell commands run;
	// stopShell cancels them (Esc, Ctrl+C).
	shellRunning bool
	stopShell    context.CancelFunc
	// theme is the theme in use.
	theme string
}

// funcMsg carries work finished off the UI's goroutine back to it.
type funcMsg func(m *model) tea.Cmd

// startShell marks a shell command running and returns its context.
func (m *model) startShell() context.Context {
	ctx, cancel := context.WithCancel(m.base)
	m.cmds.shellRunning, m.cmds.stopShell = true, cancel
	return ctx
}

// endShell marks the shell command done.
func (m *model) endShell() {
	if m.cmds.stopShell != nil {
		m.cmds.stopShell()
	}
	m.cmds.shellRunning, m.cmds.stopShell = false, nil
	m.clearProgress()
}

// takeShellContext returns the outputs of !cmd commands waiting for the
// next prompt, and forgets them.
func (m *model) takeShellContext() []llm.Part {
	p := m.cmds.shellContext
	m.cmds.shellContext = nil
	return p
}
