package permission

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is an approval mode: what runs without asking when no rule decides.
// The zero value is ModeDefault.
type Mode int32

const (
	// ModeDefault allows read-only tools and read-only shell commands and
	// asks for edits and other commands.
	ModeDefault Mode = iota
	// ModePlan allows only tools that read or search; edits and commands
	// are denied until the user approves a plan (exit_plan_mode).
	ModePlan
	// ModeAutoEdit is ModeDefault that also allows edits of files inside
	// the workspace.
	ModeAutoEdit
	// ModeYOLO allows everything that no deny or ask rule catches.
	ModeYOLO
	// ModeAuto is ModeAutoEdit that also runs every other shell command
	// unasked, inside the kernel's workspace sandbox
	// (tools.ConfineWorkspace). Where the kernel has no such sandbox it
	// is ModeAutoEdit: commands ask. A command that asks to run outside
	// the sandbox asks.
	ModeAuto
)

// ErrUnknownMode is wrapped by ParseMode's error.
var ErrUnknownMode = errors.New("unknown approval mode")

var modeNames = [...]string{
	ModeDefault:  "default",
	ModePlan:     "plan",
	ModeAutoEdit: "auto-edit",
	ModeYOLO:     "yolo",
	ModeAuto:     "auto",
}

// Modes returns the approval modes in the order users read them.
func Modes() []Mode { return []Mode{ModePlan, ModeDefault, ModeAutoEdit, ModeAuto, ModeYOLO} }

// String returns the mode's name as ParseMode accepts it.
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int32(m))
}

// valid reports whether m is one of the modes.
func (m Mode) valid() bool { return m >= 0 && int(m) < len(modeNames) }

// modeAliases maps the spellings other agents and SDKs use (Claude's
// permission modes, Qwen's setting values) to ply's modes, so that an SDK
// client's set_permission_mode works unchanged.
var modeAliases = map[string]Mode{
	"default":           ModeDefault,
	"plan":              ModePlan,
	"auto-edit":         ModeAutoEdit,
	"auto_edit":         ModeAutoEdit,
	"autoedit":          ModeAutoEdit,
	"acceptedits":       ModeAutoEdit,
	"auto":              ModeAuto,
	"yolo":              ModeYOLO,
	"bypasspermissions": ModeYOLO,
}

// ParseMode returns the mode named s: plan, default, auto-edit, auto or yolo
// (case does not matter; Claude's acceptEdits and bypassPermissions are
// accepted too).
func ParseMode(s string) (Mode, error) {
	if m, ok := modeAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return m, nil
	}
	names := make([]string, 0, len(modeNames))
	for _, m := range Modes() {
		names = append(names, m.String())
	}
	return 0, fmt.Errorf("%w %q: valid modes are %s", ErrUnknownMode, s, strings.Join(names, ", "))
}

// MarshalText implements encoding.TextMarshaler, so that a Mode can be a
// field of a settings or protocol struct.
func (m Mode) MarshalText() ([]byte, error) {
	if !m.valid() {
		return nil, fmt.Errorf("%w: %d", ErrUnknownMode, int32(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseMode.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
