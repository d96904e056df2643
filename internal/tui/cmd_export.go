package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/llm"
)

func init() {
	registerCommand(slashCommand{name: "/export", help: "[file]  write the conversation as markdown (default: a new file in this folder)", run: (*model).exportCommand})
	registerCommand(slashCommand{name: "/copy", help: "copy the last answer to the clipboard (OSC 52)", run: (*model).copyCommand})
	registerCommand(slashCommand{name: "/diff", help: "what this session changed in the workspace, file by file", run: (*model).diffCommand})
}

// maxExportResult bounds one tool result in an export.
const maxExportResult = 4000

func (m *model) now() time.Time {
	if m.cfg.Extra.Now != nil {
		return m.cfg.Extra.Now()
	}
	return time.Now()
}

func (m *model) exportCommand(arg string) tea.Cmd {
	conv, ok := probe[Conversation](m)
	if !ok {
		return m.unavailable("/export")
	}
	h := conv.Messages()
	if len(h) == 0 {
		return m.commit(m.st.dim.Render("nothing to export: the conversation is empty"))
	}
	now := m.now()
	path := arg
	if path == "" {
		path = "ply-conversation-" + now.Format("2006-01-02-150405") + ".md"
	}
	if !filepath.IsAbs(path) && m.cfg.Root != "" {
		path = filepath.Join(m.cfg.Root, path)
	}
	if err := os.WriteFile(path, []byte(exportMarkdown(h, m.cfg.Model, now)), 0o644); err != nil {
		return m.commit(m.st.err.Render("✗ exporting the conversation: " + err.Error()))
	}
	return m.commit(m.st.dim.Render(fmt.Sprintf("conversation (%d messages) written to %s", len(h), path)))
}

// exportMarkdown renders a conversation as a markdown document: prompts,
// replies as the model wrote them, tool calls with their arguments and
// (abbreviated) results.
func exportMarkdown(h []llm.Message, model string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conversation with %s\n\nExported by ply on %s.\n", model, now.Format("2006-01-02 15:04"))
	for i := range h {
		msg := &h[i]
		var text, calls, results []string
		for _, p := range msg.Parts {
			switch {
			case p.Call != nil:
				calls = append(calls, fmt.Sprintf("**Tool call** `%s`\n\n%s", p.Call.Name, fence(p.Call.Args)))
			case p.Response != nil:
				out := p.Response.Output
				if len(out) > maxExportResult {
					out = out[:maxExportResult] + fmt.Sprintf("\n… (%d bytes more)", len(p.Response.Output)-maxExportResult)
				}
				label := "Result"
				if p.Response.IsError {
					label = "Error"
				}
				results = append(results, fmt.Sprintf("**%s** of `%s`\n\n%s", label, p.Response.Name, fence(out)))
			case p.Thought || p.Media != nil:
			default:
				if t := strings.TrimSpace(p.Text); t != "" {
					text = append(text, t)
				}
			}
		}
		switch {
		case msg.Role == llm.RoleUser && len(text) > 0:
			b.WriteString("\n## User\n\n" + strings.Join(text, "\n\n") + "\n")
		case msg.Role != llm.RoleUser && (len(text) > 0 || len(calls) > 0):
			b.WriteString("\n## Assistant\n\n")
			if len(text) > 0 {
				b.WriteString(strings.Join(text, "\n\n") + "\n")
			}
		}
		for _, s := range append(calls, results...) {
			b.WriteString("\n" + s + "\n")
		}
	}
	return b.String()
}

// lastAnswer is the text of the model's last message that has any.
func lastAnswer(h []llm.Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role != llm.RoleUser {
			if t := strings.TrimSpace(h[i].Text()); t != "" {
				return t
			}
		}
	}
	return ""
}

func (m *model) copyCommand(string) tea.Cmd {
	conv, ok := probe[Conversation](m)
	if !ok {
		return m.unavailable("/copy")
	}
	text := lastAnswer(conv.Messages())
	if text == "" {
		return m.commit(m.st.dim.Render("no answer to copy yet"))
	}
	return tea.Batch(tea.SetClipboard(text), m.commit(m.st.dim.Render(fmt.Sprintf(
		"copied the last answer (%d characters) to the clipboard, by OSC 52: a terminal (or tmux) that does not allow it leaves the clipboard as it was", len([]rune(text))))))
}

func (m *model) diffCommand(string) tea.Cmd {
	d, ok := probe[Differ](m)
	if !ok {
		return m.unavailable("/diff")
	}
	base := m.base
	return func() tea.Msg {
		changes, err := d.Diff(base)
		return funcMsg(func(m *model) tea.Cmd { return m.commit(m.renderChanges(changes, err)) })
	}
}

// maxDiffLines bounds one file's diff on screen.
const maxDiffLines = 200

func (m *model) renderChanges(all Changes, err error) string {
	if err != nil {
		return m.st.err.Render("✗ /diff: " + err.Error())
	}
	changes := all.Files
	partial := ""
	if all.Partial {
		partial = m.st.warn.Render("the session's first checkpoint was never stored whole (ply stopped while taking it): only the files saved before their first change are compared") + "\n"
	}
	if len(changes) == 0 {
		return partial + m.st.dim.Render("this session has changed no file in the workspace")
	}
	var b strings.Builder
	b.WriteString(partial)
	fmt.Fprintf(&b, "%d file(s) changed in this session:", len(changes))
	for _, c := range changes {
		fmt.Fprintf(&b, "\n%s %s", m.st.bold.Render(string(c.Op)), sanitize(c.Path))
	}
	for _, c := range changes {
		b.WriteString("\n\n" + m.st.bold.Render(sanitize(c.Path)))
		switch {
		case c.Binary:
			b.WriteString(m.st.dim.Render("  (binary)"))
			continue
		case c.NoContent:
			b.WriteString(m.st.dim.Render("  (its earlier content was over the checkpoint size cap)"))
			continue
		}
		rows, hidden := m.renderDiff(lineDiff(c.Old, c.New, 2), diffOpts{width: m.width, wrap: true, max: maxDiffLines})
		if hidden > 0 {
			rows = append(rows, m.st.dim.Render(fmt.Sprintf("… %d lines more", hidden)))
		}
		for _, l := range rows {
			b.WriteString("\n" + l)
		}
	}
	return b.String()
}
