package tui

import "context"

// Session is the session the UI drives. Beyond its id, the UI probes it
// for the controls below, as net/http probes a ResponseWriter for
// http.Flusher: a command whose control the session lacks says it is not
// available.
type Session interface{ ID() string }

// ModeSwitcher changes the approval mode (Shift+Tab, /approval-mode);
// Mode is the mode now (a tool such as exit_plan_mode may change it) and
// Modes lists the modes in the order Shift+Tab cycles them.
type ModeSwitcher interface {
	Mode() string
	SetMode(name string) error
	Modes() []string
}

// ModelSwitcher switches the model of later requests (/model).
type ModelSwitcher interface{ SetModel(name string) error }

// Compressor summarises the older history now (/compress), following
// focus when it is not empty.
type Compressor interface {
	Compress(ctx context.Context, focus string) (before, after int, ok bool)
}

func (m *model) modes() ModeSwitcher {
	s, _ := m.cfg.Session.(ModeSwitcher)
	return s
}

func (m *model) models() ModelSwitcher {
	s, _ := m.cfg.Session.(ModelSwitcher)
	return s
}

func (m *model) compressor() Compressor {
	s, _ := m.cfg.Session.(Compressor)
	return s
}
