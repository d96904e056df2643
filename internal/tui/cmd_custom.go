package tui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/llm"
)

// lookupCustom finds a custom command by its name with the slash. A
// built-in of the same name wins: lookupCommand is asked first.
func (m *model) lookupCustom(name string) *customcmd.Command {
	name = strings.TrimPrefix(name, "/")
	for i := range m.cfg.Extra.Custom {
		if c := &m.cfg.Extra.Custom[i]; c.Name == name {
			return c
		}
	}
	return nil
}

// customWithPrefix lists the custom commands starting with p, with their
// slash, for completion.
func (m *model) customWithPrefix(p string) []string {
	var out []string
	for _, c := range m.cfg.Extra.Custom {
		if n := "/" + c.Name; strings.HasPrefix(n, p) && lookupCommand(n) == nil {
			out = append(out, n)
		}
	}
	return out
}

// runCustom sends a custom command's prompt. Its shell commands run only
// after the user has read them and said yes.
func (m *model) runCustom(c *customcmd.Command, arg string) tea.Cmd {
	if m.busy || m.compacting {
		return m.notIdle("/" + c.Name)
	}
	shown := strings.TrimSpace("/" + c.Name + " " + arg)
	e := c.Expand(arg)
	cmds := e.Commands()
	if len(cmds) == 0 {
		m.useCustom(c)
		return m.submitShown(shown, e.Fill(nil))
	}
	if _, ok := probe[ShellRunner](m); !ok {
		return m.commit(m.st.err.Render("/" + c.Name + " runs shell commands, which this session cannot run"))
	}
	m.picker = &picker{confirm: &confirmBox{
		title:    "/" + c.Name + " runs these commands to build its prompt:",
		commands: cmds,
		yes:      func() tea.Cmd { return m.runCustomShell(c, shown, e, cmds) },
	}}
	return nil
}

// useCustom tells the entry layer that c's prompt is sent next, for its
// allowed-tools and model (CustomUser).
func (m *model) useCustom(c *customcmd.Command) {
	if s, ok := probe[CustomUser](m); ok {
		s.UseCustom(*c)
	}
}

// submitShown starts an interaction that shows shown as the prompt and
// sends sent (a custom command's expansion).
func (m *model) submitShown(shown, sent string) tea.Cmd {
	cmd := m.commit(m.renderUser(shown))
	m.stats.prompts++
	sent = m.expandAtPaths(sent)
	return tea.Batch(cmd, m.start(append(m.takeShellContext(), llm.Part{Text: sent}), client.UserQuery))
}

// runCustomShell runs a confirmed custom command's shell commands one
// after the other, off the UI's goroutine, and then sends the prompt with
// their outputs in place.
func (m *model) runCustomShell(custom *customcmd.Command, shown string, e customcmd.Expansion, cmds []string) tea.Cmd {
	if m.cmds.shellRunning {
		return m.commit(m.st.warn.Render("a shell command is running: wait for it"))
	}
	sh, _ := probe[ShellRunner](m)
	ctx := m.startShell()
	m.setProgress(fmt.Sprintf("running %d command(s) for %s… (esc to stop)", len(cmds), sanitize(shown)))
	return tea.Batch(func() tea.Msg {
		outs := make([]string, len(cmds))
		for i, c := range cmds {
			out, code, err := sh.RunShell(ctx, c)
			outs[i] = shellText(out, code, err)
		}
		return funcMsg(func(m *model) tea.Cmd {
			stopped := ctx.Err() != nil
			m.endShell()
			if stopped {
				return m.commit(m.st.dim.Render("⏹ stopped; " + shown + " was not sent"))
			}
			text := e.Fill(outs)
			if m.busy || m.compacting {
				m.queued = append(m.queued, text)
				return m.commit(m.st.dim.Render(shown + " is queued: it goes when the agent is done"))
			}
			m.useCustom(custom)
			return m.submitShown(shown, text)
		})
	})
}

// shellText is a command's output as a prompt gets it.
func shellText(out string, code int, err error) string {
	out = strings.TrimRight(out, "\n")
	switch {
	case errors.Is(err, context.Canceled):
		out += "\n(stopped by the user)"
	case err != nil:
		out += fmt.Sprintf("\n(the command failed: %v)", err)
	case code != 0:
		out += fmt.Sprintf("\n(exit code %d)", code)
	}
	return strings.TrimLeft(out, "\n")
}

// confirmBox asks yes or no before running shell commands.
type confirmBox struct {
	title    string
	commands []string
	yes      func() tea.Cmd
	// Other questions (schedresume.go): no answers n, hint replaces the
	// keys line, plain shows the lines without "$ ".
	no    func() tea.Cmd
	hint  string
	plain bool
}

func (m *model) confirmKey(k tea.KeyPressMsg) tea.Cmd {
	c := m.picker.confirm
	switch k.String() {
	case "y", "Y", "enter":
		m.picker = nil
		return c.yes()
	case "n", "N":
		m.picker = nil
		if c.no != nil {
			return c.no()
		}
		return m.commit(m.st.dim.Render("not run; nothing was sent"))
	}
	return nil
}

func (m *model) renderConfirm() string {
	c := m.picker.confirm
	var b strings.Builder
	b.WriteString(m.st.warn.Render(c.title))
	room := max(m.height-6, 3)
	for i, cmd := range c.commands {
		if i == room {
			fmt.Fprintf(&b, "\n  … and %d more", len(c.commands)-i)
			break
		}
		bullet := "$ "
		if c.plain {
			bullet = "• "
		}
		b.WriteString("\n  " + bullet + ansi.Truncate(sanitize(cmd), max(m.width-5, 10), "…"))
	}
	b.WriteString("\n" + m.st.dim.Render(cmp.Or(c.hint, "y/Enter run them and send · n don't · Esc close")))
	return b.String()
}

// helpCustom lists the custom commands for /help.
func (m *model) helpCustom() string {
	if len(m.cfg.Extra.Custom) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Custom commands:\n")
	for _, c := range m.cfg.Extra.Custom {
		if lookupCommand("/"+c.Name) != nil {
			continue // a built-in of that name wins
		}
		name := "/" + c.Name
		if c.ArgumentHint != "" {
			name += " " + c.ArgumentHint
		}
		desc := c.Description
		if desc == "" {
			desc, _, _ = strings.Cut(c.Body, "\n")
		}
		fmt.Fprintf(&b, "  %-15s %s\n", name, abbreviate(sanitize(desc+" ("+c.Source+")"), max(m.width-20, 20)))
	}
	return b.String()
}
