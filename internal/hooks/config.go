package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/plyhq/ply/internal/spell"
)

// Events ply fires. Claude Code's other events may appear in the
// settings; they are kept but never fired.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	PostToolBatch      = "PostToolBatch"
	PermissionRequest  = "PermissionRequest"
	Notification       = "Notification"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	Stop               = "Stop"
	SessionEnd         = "SessionEnd"
)

// DefaultTimeout applies to a hook whose timeout is absent or zero.
const DefaultTimeout = 60 * time.Second

// Config is the "hooks" section of the settings: for each event name, its
// groups of hooks, in the order written.
type Config map[string][]Group

// Group is one entry of an event's list: a matcher and the commands it
// selects.
type Group struct {
	// Matcher selects by the event's subject: the tool name for
	// PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest and
	// PostToolBatch (any call of the batch), the source for SessionStart,
	// the reason for SessionEnd, the notification type for Notification,
	// the agent type for SubagentStart and SubagentStop, the trigger
	// ("manual" or "auto") for PreCompact and PostCompact. Other events
	// ignore it. "" and "*" match everything; otherwise it is a
	// regular expression that must match the whole subject, so a plain
	// name matches exactly that name and "Edit|Write" either one. For
	// tools, Claude Code's names (Bash, Edit, Write, Read, ...) match the
	// corresponding ply tools too.
	Matcher string
	Hooks   []Command
}

// Command is one hook.
type Command struct {
	// Type is "command" (or empty, which means the same) or "http".
	// Other types (Claude Code's "prompt") are reported and skipped by
	// NewRunner.
	Type    string
	Command string        // run with bash -c
	Timeout time.Duration // DefaultTimeout when zero

	// For "http": the event's JSON is POSTed to URL. Header values may
	// name environment variables as $NAME or ${NAME}; only the names in
	// AllowedEnvVars are filled in, any other becomes "".
	URL            string
	Headers        map[string]string
	AllowedEnvVars []string
}

// TypeHTTP is the Type of a hook that POSTs the event to a URL.
const TypeHTTP = "http"

// key identifies a hook for running each one once per event.
func (c Command) key() string {
	if c.Type == TypeHTTP {
		return "http " + c.URL
	}
	return "command " + c.Command
}

// Parse decodes the hooks of a settings file, the object holding a
// "hooks" key; a file without one has no hooks. Every group's matcher is
// compiled here, so a typo is reported when the settings load rather than
// when the hook would have run.
func Parse(settings []byte) (Config, error) {
	var doc struct {
		Hooks Config `json:"hooks"`
	}
	if err := json.Unmarshal(settings, &doc); err != nil {
		return nil, fmt.Errorf("hooks: decode settings: %w", err)
	}
	if err := doc.Hooks.Validate(); err != nil {
		return nil, err
	}
	return doc.Hooks, nil
}

// Validate reports every matcher that does not compile and every hook
// without a command.
func (c Config) Validate() error {
	var errs []error
	for event, groups := range c {
		for i, g := range groups {
			if _, err := compileMatcher(g.Matcher); err != nil {
				errs = append(errs, fmt.Errorf("hooks: %s[%d]: %w", event, i, err))
			}
			for j, h := range g.Hooks {
				switch {
				case h.Command == "" && (h.Type == "" || h.Type == "command"):
					errs = append(errs, fmt.Errorf("hooks: %s[%d].hooks[%d]: no command", event, i, j))
				case h.Type == TypeHTTP:
					if err := checkURL(h.URL); err != nil {
						errs = append(errs, fmt.Errorf("hooks: %s[%d].hooks[%d]: %w", event, i, j, err))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// UnmarshalJSON accepts Claude Code's nested form,
// {"matcher": "...", "hooks": [{"type": "command", "command": "...", "timeout": 30}]},
// and the flat form, {"matcher": "...", "command": "...", "timeout": 30}.
func (g *Group) UnmarshalJSON(b []byte) error {
	var raw struct {
		Matcher string    `json:"matcher"`
		Hooks   []Command `json:"hooks"`
	}
	if err := strictObject(b, &raw); err != nil {
		return err
	}
	// The flat form's fields, read by Command's own decoder.
	var flat Command
	if err := flat.UnmarshalJSON(b); err != nil {
		return err
	}
	if raw.Hooks == nil && flat.Command == "" && flat.URL == "" {
		return errors.New("hooks: an entry needs a \"command\" or a \"hooks\" list")
	}
	hooks := raw.Hooks
	if flat.Command != "" || flat.URL != "" {
		hooks = append(hooks, flat)
	}
	*g = Group{Matcher: raw.Matcher, Hooks: hooks}
	return nil
}

// UnmarshalJSON reads the timeout in seconds, as the settings write it.
func (c *Command) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type           string            `json:"type"`
		Command        string            `json:"command"`
		Timeout        *float64          `json:"timeout"`
		URL            string            `json:"url"`
		Headers        map[string]string `json:"headers"`
		AllowedEnvVars []string          `json:"allowedEnvVars"`
	}
	if err := strictObject(b, &raw); err != nil {
		return err
	}
	*c = Command{Type: raw.Type, Command: raw.Command, URL: raw.URL, Headers: raw.Headers, AllowedEnvVars: raw.AllowedEnvVars}
	if raw.Timeout != nil {
		if *raw.Timeout < 0 {
			return fmt.Errorf("hooks: timeout %v is negative", *raw.Timeout)
		}
		c.Timeout = time.Duration(*raw.Timeout * float64(time.Second))
	}
	return nil
}

// strictObject decodes a JSON object into v, with an error that says the
// value is not an object rather than Go's type-mismatch wording.
func strictObject(b []byte, v any) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("hooks: expected an object, got %.40s", t)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	return nil
}

// matcher is a compiled Group.Matcher; nil matches everything.
type matcher struct{ re *regexp.Regexp }

func compileMatcher(m string) (matcher, error) {
	if m == "" || m == "*" {
		return matcher{}, nil
	}
	re, err := regexp.Compile(`^(?:` + m + `)$`)
	if err != nil {
		return matcher{}, fmt.Errorf("matcher %q: %w", m, err)
	}
	return matcher{re}, nil
}

// match reports whether subject, or one of its Claude Code aliases when it
// is a tool name, matches.
func (m matcher) match(subject string) bool {
	if m.re == nil {
		return true
	}
	if m.re.MatchString(subject) {
		return true
	}
	for _, a := range aliasesOf[subject] {
		if m.re.MatchString(a) {
			return true
		}
	}
	return false
}

// toolAliases maps Claude Code's tool names to ply's, so that matchers
// written for Claude Code ("Bash", "Edit|Write") select the same tools.
var toolAliases = map[string]string{
	"Bash":      "run_shell_command",
	"Edit":      "edit",
	"MultiEdit": "edit",
	"Write":     "write_file",
	"Read":      "read_file",
	"Glob":      "glob",
	"Grep":      "grep_search",
	"LS":        "list_directory",
}

// aliasesOf is toolAliases inverted: ply name → Claude Code names.
var aliasesOf = func() map[string][]string {
	m := make(map[string][]string)
	for claude, ply := range toolAliases {
		m[ply] = append(m[ply], claude)
	}
	return m
}()

// fired lists the events ply fires, in the order of the constants.
var fired = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch,
	PermissionRequest, Notification, SubagentStart, SubagentStop, PreCompact, PostCompact, Stop, SessionEnd}

// Unfired says, one line each, which events of c ply never fires, so
// their hooks never run: a misspelling (with the event meant) or another
// agent's event.
func (c Config) Unfired() []string {
	var out []string
	for _, event := range slices.Sorted(maps.Keys(c)) {
		if slices.Contains(fired, event) {
			continue
		}
		line := fmt.Sprintf("hooks: ply never fires %q, so its hooks do not run", event)
		if near := spell.Closest(event, fired, 1, spell.Lower, func(cand string, d int) bool { return d <= max(2, len(cand)/4) }); len(near) > 0 {
			line += fmt.Sprintf(" (did you mean %q?)", near[0])
		}
		out = append(out, line)
	}
	return out
}
