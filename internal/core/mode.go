package core

import (
	"sync"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tools"
)

// modeSync keeps what the model is shown in step with the approval mode,
// whichever entry layer or tool changed it (Shift+Tab, /approval-mode,
// ACP's session/set_mode, the SDK's set_permission_mode, an approved
// plan): the system prompt's approval section and tool list are rebuilt,
// exit_plan_mode is offered exactly while in plan mode, and the next
// message sent carries a note of the change. The policy owns the mode;
// this is the one place that reacts to it.
//
// exit_plan_mode is added at the end of the tool list and removed from
// wherever it is, and the tools a session that starts in plan mode leaves
// out are added at the end when it first ends, so the other tools keep
// their order. A provider's
// prompt cache does not survive the change anyway: the system prompt
// changes with the mode, and it precedes the history in every request.
type modeSync struct {
	reg       *tools.Registry
	chat      *chat.Chat
	exit      tools.Tool // exit_plan_mode
	offerExit bool       // no rule or flag keeps exit_plan_mode from the model
	env       sysprompt.Env
	// later are the tools a session that started in plan mode left out
	// (untilPlanEnds): added at the end of the list, and enabled in
	// policy, when plan mode first ends.
	later  []tools.Tool
	policy *permission.Policy

	mu    sync.Mutex
	notes []string
	// queued are other notes for the next message, and sent what runs
	// when they go.
	queued []string
	sent   []func()
}

// queue adds note to those the next message carries; sent runs when
// it is taken.
func (m *modeSync) queue(note string, sent func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queued = append(m.queued, note)
	if sent != nil {
		m.sent = append(m.sent, sent)
	}
}

// ModeChanged implements permission.ModeWatcher.
func (m *modeSync) ModeChanged(_, to permission.Mode) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, has := m.reg.Lookup(tools.ExitPlanModeName)
	switch {
	case to == permission.ModePlan && !has && m.offerExit:
		m.reg.Register(m.exit)
	case to != permission.ModePlan && has:
		m.reg.Remove(tools.ExitPlanModeName)
	}
	if to != permission.ModePlan {
		for _, t := range m.later {
			m.policy.Unwithhold(t.Name())
			m.reg.Register(t)
		}
		m.later = nil
	}
	offerEscalation(m.reg, to)
	env := m.env
	env.Mode = to.String()
	env.Tools = m.reg.OfferedNames()
	m.chat.SetSystem(sysprompt.Build(env))
	m.chat.SetTools(m.reg.Decls())
	m.notes = append(m.notes[:0], modeNote(to, m.policy.SandboxMissing()))
}

// TakeReminders implements client.Reminders: the note of the last change
// of mode and the queued notes, once.
func (m *modeSync) TakeReminders() []string {
	m.mu.Lock()
	out := append(m.queued, m.notes...)
	sent := m.sent
	m.notes, m.queued, m.sent = nil, nil, nil
	m.mu.Unlock()
	for _, f := range sent {
		f()
	}
	return out
}

// modeNote tells the model the approval mode changed during the session.
func modeNote(to permission.Mode, noSandbox error) string {
	var what string
	switch to {
	case permission.ModePlan:
		what = "This is plan mode: only tools that read or search run; edits and other commands are refused. Explore, then present your plan with exit_plan_mode and wait for the user's decision."
	case permission.ModeAutoEdit:
		what = "Edits inside the workspace now run without asking; other shell commands still ask."
	case permission.ModeYOLO:
		what = "Every tool call now runs without asking."
	case permission.ModeAuto:
		what = "Edits inside the workspace and shell commands now run without asking; commands run in a sandbox that writes only the workspace, reads nothing of the home directory's private files and has no network."
		if noSandbox != nil {
			what = "Edits inside the workspace now run without asking; shell commands still ask, because this system has no sandbox to run them in."
		}
	default:
		what = "Edits and shell commands that do not only read now ask for approval."
	}
	return "<system-reminder>The approval mode is now " + to.String() + ". " + what + "</system-reminder>"
}

// currentMode names the policy's approval mode when asked (for hooks'
// permission_mode).
type currentMode struct{ p *permission.Policy }

func (m currentMode) String() string { return m.p.Mode().String() }

// offerEscalation declares the shell's arguments that ask to leave auto
// mode's sandbox exactly while the mode is auto: no other mode has that
// sandbox, and every request of theirs would carry them for nothing.
func offerEscalation(reg *tools.Registry, mode permission.Mode) {
	t, ok := reg.Lookup((*tools.Shell)(nil).Name())
	if !ok {
		return
	}
	if sh, ok := t.(interface{ OfferEscalation(bool) }); ok {
		sh.OfferEscalation(mode == permission.ModeAuto)
	}
}
