package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// TrustQuestion is the start-up question asked in a folder the user has
// not trusted that has project configuration ply would otherwise load.
type TrustQuestion struct {
	// Dir is the workspace; Parent is its parent folder.
	Dir, Parent string
	// Ignored says what is left out unless the folder is trusted, e.g.
	// ".ply/settings.json (approvalMode, hooks)".
	Ignored string
	NoColor bool
}

// NotTrustedNotice is the line that says what an untrusted folder's run
// leaves out and how to trust the folder.
func NotTrustedNotice(ignored string) string {
	return "ply: this folder is not trusted: ignored " + sanitize(ignored) +
		"; run 'ply trust' or pass --trust-workspace"
}

// TrustAnswer is the user's reply.
type TrustAnswer int

const (
	// TrustNotNow runs without the project's configuration; ply asks
	// again next time.
	TrustNotNow TrustAnswer = iota
	// TrustFolder trusts Dir and its subfolders.
	TrustFolder
	// TrustParent trusts Parent and its subfolders.
	TrustParent
	// TrustQuit is Ctrl+C: the user left without answering.
	TrustQuit
)

// trustOptions are the choices in the order shown.
var trustOptions = []struct {
	answer TrustAnswer
	label  string
}{
	{TrustFolder, "Trust this folder"},
	{TrustParent, "Trust the parent folder"},
	{TrustNotNow, "Not now"},
}

// trustModel is the question as a Bubble Tea model: ↑/↓ or 1–3 choose,
// Enter confirms, Esc is "not now", Ctrl+C quits.
type trustModel struct {
	q      TrustQuestion
	st     styles
	sel    int
	done   bool
	answer TrustAnswer
	width  int
}

func newTrustModel(q TrustQuestion) *trustModel {
	return &trustModel{q: q, st: newStyles(q.NoColor), width: 80}
}

func (m *trustModel) Init() tea.Cmd { return nil }

func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = msg.Width
	case tea.KeyPressMsg:
		switch {
		case msg.Code == 'c' && msg.Mod == tea.ModCtrl:
			return m, m.finish(TrustQuit)
		case msg.Code == tea.KeyEscape:
			return m, m.finish(TrustNotNow)
		case msg.Code == tea.KeyUp:
			m.sel = (m.sel + len(trustOptions) - 1) % len(trustOptions)
		case msg.Code == tea.KeyDown || msg.Code == tea.KeyTab:
			m.sel = (m.sel + 1) % len(trustOptions)
		case msg.Code == tea.KeyEnter:
			return m, m.finish(trustOptions[m.sel].answer)
		case msg.Code >= '1' && int(msg.Code-'1') < len(trustOptions):
			m.sel = int(msg.Code - '1')
			return m, m.finish(trustOptions[m.sel].answer)
		}
	}
	return m, nil
}

// finish ends the question; the session's UI shows the outcome (see
// Config.Notice).
func (m *trustModel) finish(a TrustAnswer) tea.Cmd {
	m.done, m.answer = true, a
	return tea.Quit
}

func (m *trustModel) View() tea.View {
	if m.done {
		return tea.NewView("")
	}
	w := max(m.width-6, 20)
	var b strings.Builder
	b.WriteString(m.st.warn.Render("Do you trust this folder?") + "\n")
	b.WriteString(strings.Join(wrapIndent("", sanitize(m.q.Dir), w), "\n") + "\n\n")
	b.WriteString(strings.Join(wrapIndent("", "It has configuration that can run commands, change what needs approval or "+
		"send your API key elsewhere: "+sanitize(m.q.Ignored)+". ply loads it only in a folder you trust; "+
		"its AGENTS.md and PLY.md are read either way.", w), "\n") + "\n\n")
	for i, o := range trustOptions {
		label := o.label
		if o.answer == TrustParent {
			label += " (" + sanitize(m.q.Parent) + ")"
		}
		line := fmt.Sprintf("%d. %s", i+1, label)
		if i == m.sel {
			b.WriteString(m.st.bold.Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	b.WriteString(m.st.dim.Render("↑/↓ choose · enter confirm · esc not now"))
	return tea.NewView(m.st.dialog.Width(max(m.width-2, 24)).Render(b.String()) + "\n")
}

// AskTrust shows q until the user answers. in and out are the terminal
// (nil for the process's own); the program's context is ctx.
func AskTrust(ctx context.Context, q TrustQuestion, in io.Reader, out io.Writer) (TrustAnswer, error) {
	m := newTrustModel(q)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
	}
	_, err := tea.NewProgram(m, opts...).Run()
	switch {
	case errors.Is(err, tea.ErrInterrupted):
		return TrustQuit, nil
	case err != nil:
		return TrustQuit, err
	case !m.done:
		return TrustQuit, nil
	}
	return m.answer, nil
}
