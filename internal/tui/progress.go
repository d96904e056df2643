package tui

import "github.com/charmbracelet/x/ansi"

// A command that runs a while (a !cmd, a custom command's shell lines)
// says so in the live area rather than in the conversation: the line is
// never printed, so when the command ends its result stands alone where
// the progress line was, not under it.

// setProgress shows line in the live area until clearProgress.
func (m *model) setProgress(line string) { m.progress = line }

func (m *model) clearProgress() { m.progress = "" }

// progressView draws the progress line, cut to the width.
func (m *model) progressView() string {
	if m.progress == "" {
		return ""
	}
	return ansi.Truncate("⋯ "+m.st.dim.Render(m.progress), m.width-1, "…")
}
