package hooks

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	got, err := Parse([]byte(`{
		"model": "ignored",
		"hooks": {
			"PreToolUse": [
				{"matcher": "run_shell_command|Bash", "hooks": [
					{"type": "command", "command": "check.sh", "timeout": 30},
					{"command": "log.sh"}
				]},
				{"matcher": "Edit", "command": "flat.sh", "timeout": 0.5}
			],
			"Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
			"Notification": [{"command": "never-fired.sh"}]
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		PreToolUse: {
			{Matcher: "run_shell_command|Bash", Hooks: []Command{
				{Type: "command", Command: "check.sh", Timeout: 30 * time.Second},
				{Command: "log.sh"},
			}},
			{Matcher: "Edit", Hooks: []Command{{Command: "flat.sh", Timeout: 500 * time.Millisecond}}},
		},
		Stop:           {{Hooks: []Command{{Type: "command", Command: "stop.sh"}}}},
		"Notification": {{Hooks: []Command{{Command: "never-fired.sh"}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse =\n%#v\nwant\n%#v", got, want)
	}

	if c, err := Parse([]byte(`{"model": "x"}`)); err != nil || len(c) != 0 {
		t.Errorf("settings without hooks: %v, %v", c, err)
	}

	for name, tc := range map[string]struct{ settings, want string }{
		"bad matcher":      {`{"hooks": {"PreToolUse": [{"matcher": "(", "command": "x"}]}}`, `PreToolUse[0]: matcher "("`},
		"negative timeout": {`{"hooks": {"Stop": [{"command": "x", "timeout": -1}]}}`, "negative"},
		"no command":       {`{"hooks": {"Stop": [{"matcher": "x"}]}}`, `needs a "command" or a "hooks" list`},
		"empty command":    {`{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}`, "Stop[0].hooks[0]: no command"},
		"not an object":    {`{"hooks": {"Stop": ["echo hi"]}}`, "expected an object"},
		"bad timeout type": {`{"hooks": {"Stop": [{"command": "x", "timeout": "30"}]}}`, "timeout"},
		"not JSON":         {`{"hooks": `, "decode settings"},
	} {
		_, err := Parse([]byte(tc.settings))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestMatcher(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		matcher string
		yes, no []string
	}{
		{"", []string{"edit", "anything", ""}, nil},
		{"*", []string{"edit", "run_shell_command"}, nil},
		{"Bash", []string{"run_shell_command", "Bash"}, []string{"edit", "bash"}},
		{"Edit|Write", []string{"edit", "write_file"}, []string{"read_file", "run_shell_command"}},
		{"Read", []string{"read_file"}, []string{"read_many_files"}},
		// Anchored: a plain name matches that name only.
		{"read", []string{"read"}, []string{"read_file"}},
		{"run_.*", []string{"run_shell_command"}, []string{"edit"}},
		{"Grep|Glob|LS", []string{"grep_search", "glob", "list_directory"}, []string{"edit"}},
		{"mcp__.*", []string{"mcp__github__search"}, []string{"edit"}},
	} {
		m, err := compileMatcher(tc.matcher)
		if err != nil {
			t.Fatalf("%q: %v", tc.matcher, err)
		}
		for _, s := range tc.yes {
			if !m.match(s) {
				t.Errorf("matcher %q does not match %q", tc.matcher, s)
			}
		}
		for _, s := range tc.no {
			if m.match(s) {
				t.Errorf("matcher %q matches %q", tc.matcher, s)
			}
		}
	}
}

func TestNewRunner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.runner(Config{Stop: {{Hooks: []Command{{Type: "prompt", Command: "judge it"}, {Command: "true"}}}}})
	w := e.reported()
	if len(w) != 1 || !errors.Is(w[0].Err, ErrNotRun) || !strings.Contains(w[0].Error(), `hook type "prompt" is not supported`) {
		t.Errorf("warnings = %v", w)
	}
	if got := r.events[Stop]; len(got) != 1 || len(got[0].hooks) != 1 || got[0].hooks[0].Timeout != DefaultTimeout {
		t.Errorf("compiled Stop hooks = %+v", got)
	}
	if _, err := NewRunner(Config{PreToolUse: {{Matcher: "[", Hooks: []Command{{Command: "x"}}}}}, Options{Dir: e.dir}); err == nil {
		t.Error("NewRunner accepted a bad matcher")
	}
}

func TestUnfired(t *testing.T) {
	c, err := Parse([]byte(`{"hooks": {"PreToolUs": [{"command": "true"}], "PreToolUse": [{"command": "true"}], "TeammateIdle": [{"command": "true"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Unfired()
	if len(got) != 2 || !strings.Contains(got[0], `"PreToolUs"`) || !strings.Contains(got[0], `(did you mean "PreToolUse"?)`) ||
		!strings.Contains(got[1], `"TeammateIdle"`) || strings.Contains(got[1], "did you mean") {
		t.Fatalf("%q", got)
	}
}
