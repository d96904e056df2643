package permission

import (
	"errors"
	"strings"
	"testing"
)

func TestAliases(t *testing.T) {
	for canonical, names := range map[string][]string{
		ToolReadFile:      {"read_file", "Read", "ReadFileTool", "ReadFile", "READ"},
		ToolEdit:          {"edit", "Edit", "EditTool"},
		ToolWriteFile:     {"write_file", "Write", "WriteFileTool"},
		ToolShell:         {"run_shell_command", "Bash", "Shell", "ShellTool", "bash"},
		ToolGrep:          {"grep_search", "Grep", "GrepTool"},
		ToolGlob:          {"glob", "Glob", "GlobTool"},
		ToolListDirectory: {"list_directory", "LS", "ls"},
		ToolWebFetch:      {"web_fetch", "WebFetch"},
		ToolReadManyFiles: {"read_many_files", "ReadManyFiles"},
		ToolTodoWrite:     {"todo_write", "TodoWrite"},
		ToolAgent:         {"agent", "Task"},
		"save_memory":     {"save_memory"}, // unknown names pass through
		"MyTool":          {"MyTool"},      // unchanged, case included
	} {
		for _, n := range names {
			r, err := ParseRule(n)
			if err != nil {
				t.Errorf("ParseRule(%q): %v", n, err)
				continue
			}
			if r.Tool() != canonical || CanonicalName(n) != canonical {
				t.Errorf("%q resolves to %q / %q, want %q", n, r.Tool(), CanonicalName(n), canonical)
			}
			if r.String() != n {
				t.Errorf("String() = %q, want %q", r.String(), n)
			}
		}
	}
	for text, tool := range map[string]string{
		"Bash(git *)":            ToolShell,
		"ShellTool(git status)":  ToolShell,
		"  Read(.env)  ":         ToolReadFile,
		"mcp__github":            "mcp__github",
		"mcp__github__*":         "mcp__github",
		"mcp__github__get_issue": "mcp__github__get_issue",
		"mcp__My_Server__Tool":   "mcp__My_Server__Tool",
		"Bash(*)":                ToolShell,
	} {
		r, err := ParseRule(text)
		if err != nil || r.Tool() != tool {
			t.Errorf("ParseRule(%q) = %q, %v; want tool %q", text, r.Tool(), err, tool)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for text, why := range map[string]string{
		"":                                 "empty rule",
		"   ":                              "empty rule",
		"Bash(git *":                       `missing ")"`,
		"Bash git)":                        `")" without "("`,
		"(git status)":                     "no tool name",
		"Bash()":                           "empty parentheses",
		"Bash git":                         "not a tool name",
		"Read[.env]":                       "not a tool name",
		"Bash(git status && rm)":           "shell syntax",
		"Bash(git log | less)":             "shell syntax",
		"Bash(echo $HOME)":                 "shell syntax",
		"Bash(echo `id`)":                  "shell syntax",
		`Bash(echo "$HOME")`:               "expansion",
		"Bash(cat > x)":                    "shell syntax",
		"Bash(echo 'unclosed)":             "unterminated single quote",
		`Bash(echo "unclosed)`:             "unterminated double quote",
		`Bash(echo \)`:                     "backslash at the end",
		"Bash(:*)":                         `nothing before ":*"`,
		"Read(!.env)":                      "negated",
		"Read(~bob/x)":                     "~user",
		"Edit(/src/../../etc/**)":          `".."`,
		"Read(src/[a)":                     "not a valid glob",
		"WebFetch(example.com)":            "domain:HOST",
		"WebFetch(domain:)":                "no host",
		"WebFetch(domain:https://x.com/a)": "not a host name",
		"TodoWrite(x)":                     "takes no specifier",
		"MyTool(x)":                        "takes no specifier",
		"mcp__":                            "names no MCP server",
		"mcp__gh__":                        "names no tool",
		"mcp__gh(x)":                       "MCP server takes no specifier",
	} {
		_, err := ParseRule(text)
		var re *RuleError
		if !errors.As(err, &re) {
			t.Errorf("ParseRule(%q) = %v, want a *RuleError", text, err)
			continue
		}
		if re.Rule != text || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "permission rule") {
			t.Errorf("ParseRule(%q) error %q (rule %q), want it to name the rule and say %q", text, err, re.Rule, why)
		}
	}
}

func TestShellPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		words   []string
		want    bool
	}{
		{"git *", []string{"git"}, true},
		{"git *", []string{"git", "status", "-s"}, true},
		{"git *", []string{"gitk"}, false},
		{"git status", []string{"git", "status"}, true},
		{"git status", []string{"git", "status", "-s"}, false},
		{"git status:*", []string{"git", "status", "-s"}, true},
		{"git status:*", []string{"git", "status"}, true},
		{"git status:*", []string{"git", "statuses"}, false},
		{"ls*", []string{"lsof"}, true},
		{"ls*", []string{"ls", "-la"}, true},
		{"ls*", []string{"cat"}, false},
		{"git * --force", []string{"git", "push", "origin", "--force"}, true},
		{"git * --force", []string{"git", "--force"}, true},
		{"git * --force", []string{"git", "push", "--force", "x"}, false},
		{"npm run test*", []string{"npm", "run", "test:unit", "--watch"}, true},
		{"echo 'a b'", []string{"echo", "a b"}, true},
		{"echo 'a b'", []string{"echo", "a", "b"}, false},
		{`echo "*"`, []string{"echo", "*"}, true},
		{`echo "*"`, []string{"echo", "x"}, false},
		{`echo \*`, []string{"echo", "*"}, true},
		{"a*b*c", []string{"abc"}, true},
		{"a*b*c", []string{"axxbyyc"}, true},
		{"a*b*c", []string{"acb"}, false},
		{"a*b*c x", []string{"abcbc", "x"}, true},
		{"* --version", []string{"go", "--version"}, true},
		{"* * *", []string{}, true},
		{"**", []string{"a", "b"}, true},
		{"'' x", []string{"", "x"}, true},
	}
	for _, tc := range tests {
		sp, err := parseShellPattern(tc.pattern, false)
		if err != nil {
			t.Errorf("%q: %v", tc.pattern, err)
			continue
		}
		if got := sp.match(tc.words); got != tc.want {
			t.Errorf("%q matching %q = %v, want %v", tc.pattern, tc.words, got, tc.want)
		}
	}
	// With Qwen's prefix reading (--core-tools, --exclude-tools), a pattern
	// without a star is a prefix.
	sp, err := parseShellPattern("rm -rf", true)
	if err != nil || !sp.match([]string{"rm", "-rf", "/"}) || sp.match([]string{"rm", "x"}) {
		t.Errorf("legacy prefix: %v", err)
	}
}

func TestQuoteWordRoundTrip(t *testing.T) {
	for _, w := range []string{"git", "", "a b", "it's", `say "hi"`, "*", "a*b", "$HOME", "x;y", `back\slash`, "tab\there", "(x)"} {
		sp, err := parseShellPattern(quoteWord(w), false)
		if err != nil {
			t.Errorf("quoteWord(%q) = %q: %v", w, quoteWord(w), err)
			continue
		}
		if !sp.match([]string{w}) || (w != "x" && sp.match([]string{"x"})) {
			t.Errorf("quoteWord(%q) = %q does not match exactly the word", w, quoteWord(w))
		}
	}
}

func TestParseMode(t *testing.T) {
	for s, want := range map[string]Mode{
		"plan": ModePlan, "default": ModeDefault, "auto-edit": ModeAutoEdit, "auto": ModeAuto, "yolo": ModeYOLO,
		"YOLO": ModeYOLO, " auto_edit ": ModeAutoEdit, "acceptEdits": ModeAutoEdit, "bypassPermissions": ModeYOLO,
	} {
		if got, err := ParseMode(s); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	_, err := ParseMode("automatic")
	if !errors.Is(err, ErrUnknownMode) || !strings.Contains(err.Error(), "plan, default, auto-edit, auto, yolo") || !strings.Contains(err.Error(), `"automatic"`) {
		t.Errorf("ParseMode(automatic) error = %v", err)
	}
	for _, m := range Modes() {
		b, err := m.MarshalText()
		var back Mode
		if err != nil || back.UnmarshalText(b) != nil || back != m {
			t.Errorf("%v does not round-trip: %q, %v", m, b, err)
		}
	}
	if _, err := Mode(9).MarshalText(); err == nil {
		t.Error("Mode(9) marshals")
	}
}
