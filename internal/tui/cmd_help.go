package tui

import (
	"fmt"
	"strings"
)

// helpGroups puts the commands in groups for /help; a command not named
// here is listed under "Other".
var helpGroups = []struct {
	title string
	names []string
}{
	{"Conversation", []string{"/clear", "/compress", "/resume", "/rewind", "/rename", "/export", "/copy", "/init"}},
	{"Model, approval and look", []string{"/model", "/approval-mode", "/permissions", "/theme"}},
	{"What is going on", []string{"/stats", "/cost", "/context", "/diff", "/tools", "/mcp", "/agents", "/memory", "/help"}},
	{"Background work and skills", []string{"/tasks", "/loop", "/skills"}},
	{"Set-up", []string{"/doctor", "/config", "/add-dir", "/ide"}},
}

// helpKeys lists the keys by where they work.
const helpKeys = `Keys at the prompt:
  Enter           send (while the agent works: queue for when it is done)
  Ctrl+J          new line (Shift+Enter where the terminal reports it)
  Up/Down         previous/next prompt
  / or @word      menu: Up/Down choose, Tab takes, Enter runs/takes, Esc closes
  !command        run a shell command yourself; the model sees its output with your next prompt
  @path           add a file's content to the prompt
  Shift+Tab       next approval mode (plan, default, auto-edit, auto; never yolo)
  Ctrl+Y          retry the last failed request
  Esc Esc         rewind to before a prompt (on an empty prompt)
  Ctrl+C twice    leave (on an empty prompt)
While the agent (or a !command) works:
  Esc, Ctrl+C     stop it (messages typed meanwhile go back into the input)
Any time:
  Ctrl+T          show or fold the model's thoughts
  Ctrl+O          show or fold the full output of tool calls (prints the latest again in full)
In the approval dialog:
  y               allow once
  a               allow always (for the scope it names, this session)
  p / u           allow always and save the rule to the project's / user's settings
  n               deny (then type a reason, Enter)
  ↑/↓ PgUp/PgDn   scroll
  A plan: a approve with auto-accepted edits, y approve and ask before each edit, n keep planning.`

func (m *model) helpText() string {
	var b strings.Builder
	listed := map[string]bool{"/quit": true}
	line := func(c *slashCommand) {
		fmt.Fprintf(&b, "  %-15s %s\n", c.name, c.help)
		listed[c.name] = true
	}
	for _, g := range helpGroups {
		b.WriteString(g.title + ":\n")
		for _, n := range g.names {
			if c := lookupCommand(n); c != nil {
				line(c)
			}
		}
	}
	var other []int
	for i := range commands {
		if !listed[commands[i].name] {
			other = append(other, i)
		}
	}
	if len(other) > 0 {
		b.WriteString("Other:\n")
		for _, i := range other {
			line(&commands[i])
		}
	}
	if c := lookupCommand("/quit"); c != nil {
		fmt.Fprintf(&b, "  %-15s %s (or /exit)\n", c.name, c.help)
	}
	b.WriteString(m.helpCustom())
	b.WriteString(helpKeys)
	return b.String()
}
