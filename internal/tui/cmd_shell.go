package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/llm"
)

// bangShown bounds the lines of a !cmd's output shown on screen; the
// model gets it all (up to the shell's own cap).
const bangShown = 20

// bang runs a command the user typed after "!" (bash mode): the user
// asked for it, so nothing asks again. Its output is shown, and goes to
// the model with the next prompt.
func (m *model) bang(command string) tea.Cmd {
	if command == "" {
		return m.commit(m.st.dim.Render("type a shell command after ! to run it"))
	}
	sh, ok := probe[ShellRunner](m)
	if !ok {
		return m.unavailable("!command")
	}
	if m.cmds.shellRunning {
		return m.commit(m.st.warn.Render("a shell command is running: wait for it"))
	}
	ctx := m.startShell()
	m.setProgress("running " + abbreviate(sanitize(command), 40) + "… (esc to stop)")
	return tea.Batch(m.commit(m.renderUser("!"+command)), func() tea.Msg {
		out, code, err := sh.RunShell(ctx, command)
		return funcMsg(func(m *model) tea.Cmd { return m.bangDone(command, out, code, err) })
	})
}

func (m *model) bangDone(command, out string, code int, err error) tea.Cmd {
	m.endShell()
	text := shellText(out, code, err)
	m.cmds.shellContext = append(m.cmds.shellContext, llm.Part{Text: fmt.Sprintf(
		"The user ran this shell command themselves:\n$ %s\n%s\n", command, fence(text))})
	lines := strings.Split(sanitizeLines(text), "\n")
	shown := lines
	if len(lines) > bangShown {
		shown = append(lines[:bangShown:bangShown], fmt.Sprintf("… %d lines more (the model gets them all)", len(lines)-bangShown))
	}
	block := "  ⎿ " + strings.Join(shown, "\n    ")
	if text == "" {
		block = "  ⎿ (no output)"
	}
	style := m.st.dim
	if err != nil || code != 0 {
		style = m.st.err
	}
	return m.commit(style.Render(block) + "\n" + m.st.dim.Render("  (the model sees this with your next prompt)"))
}

// fence puts text in a markdown code block whose fence it cannot close.
func fence(text string) string {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f + "\n" + text + "\n" + f
}
