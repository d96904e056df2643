package tui

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/turn"
)

// thoughtBuf collects the reasoning of the running round and counts its
// words as it grows, so the folded line costs nothing per frame.
type thoughtBuf struct {
	b      strings.Builder
	words  int
	inWord bool
}

func (t *thoughtBuf) write(s string) {
	t.b.WriteString(s)
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !t.inWord {
			t.words++
		}
		t.inWord = !space
	}
}

func (t *thoughtBuf) reset()   { *t = thoughtBuf{} }
func (t *thoughtBuf) len() int { return t.b.Len() }

// event applies one stream event.
func (m *model) event(ev turn.Event) tea.Cmd {
	switch e := ev.(type) {
	case turn.Content:
		var cmds []tea.Cmd
		if m.roundDone {
			// A continuation (next speaker, Stop hook) is a new message.
			cmds = append(cmds, m.commitText())
			m.roundDone = false
		}
		if m.thinking.len() > 0 {
			cmds = append(cmds, m.commitThought())
		}
		if m.reply == nil {
			m.reply = m.md.stream(m.width)
		}
		// Finished lines go to the scrollback now; only the open line
		// stays in the live area.
		if lines := m.reply.write(e.Text); len(lines) > 0 {
			cmds = append(cmds, m.commit(strings.Join(lines, "\n")))
		}
		m.status = ""
		return tea.Batch(cmds...)
	case turn.Thought:
		m.thinking.write(e.Text)
	case *turn.ToolCallRequest:
		m.updateCard(callView{id: e.CallID, name: e.Name, args: e.Args})
	case turn.Finished:
		if e.Usage != nil {
			m.stats.usage.Add(e.Usage)
			m.addCost(e.Usage)
		}
		m.stats.rounds++
		m.roundDone = true
		m.refreshContext()
		return m.commitText()
	case turn.Retry:
		// What was printed of the failed attempt cannot be taken back from
		// the scrollback; say that it is void.
		var cmd tea.Cmd
		if m.reply != nil && m.reply.any {
			cmd = m.commit(m.st.warn.Render("↻ (the reply above was cut off; the model is asked again)"))
		}
		m.resetRound()
		m.dropPendingCards()
		m.status = "retrying: " + abbreviate(sanitize(e.Reason), 100)
		return cmd
	case turn.ChatCompressed:
		m.stats.compressions++
		return m.commit(m.st.dim.Render(formatCompressed(e.TokensBefore, e.TokensAfter)))
	case turn.LoopDetected:
		return tea.Batch(m.commitText(), m.commit(m.st.err.Render("✗ stopped: "+e.Message)))
	case turn.Error:
		if m.cancelling {
			return nil
		}
		// A refused prompt was never sent: there is nothing to resend.
		_, refused := errors.AsType[*client.PromptRefused](e.Err)
		m.retryable = !refused
		return tea.Batch(m.commitText(), m.commit(m.st.err.Render("✗ "+sanitize(e.Err.Error()))))
	case turn.UserCancelled:
	}
	return nil
}

func (m *model) resetRound() {
	m.reply = nil
	m.thinking.reset()
	m.roundDone = false
}

// commitThought moves the round's reasoning into the conversation, folded
// unless thoughts are shown.
func (m *model) commitThought() tea.Cmd {
	t := m.thinking.b.String()
	words := m.thinking.words
	m.thinking.reset()
	if strings.TrimSpace(t) == "" {
		return nil
	}
	if m.showThoughts {
		// Shown in full already: Ctrl+T has nothing more to print.
		m.lastThought = ""
		return m.commit(m.renderThoughtFull(t))
	}
	m.lastThought = t
	return m.commit(m.st.dim.Render(fmt.Sprintf("∴ thought (%d words) · ctrl+t to show", words)))
}

// commitText moves the rest of the streamed reply (and its thought) into
// the conversation.
func (m *model) commitText() tea.Cmd {
	var cmds []tea.Cmd
	if m.thinking.len() > 0 {
		cmds = append(cmds, m.commitThought())
	}
	if m.reply != nil {
		if lines := m.reply.end(); len(lines) > 0 {
			cmds = append(cmds, m.commit(strings.Join(lines, "\n")))
		}
		m.reply = nil
	}
	return tea.Batch(cmds...)
}

// toggleThoughts shows or folds thoughts (Ctrl+T). Showing them also
// prints the last folded one in full: what is in the scrollback cannot be
// unfolded in place.
func (m *model) toggleThoughts() tea.Cmd {
	m.showThoughts = !m.showThoughts
	if m.showThoughts && m.lastThought != "" && m.thinking.len() == 0 {
		t := m.lastThought
		m.lastThought = ""
		return m.commit(m.renderThoughtFull(t))
	}
	return nil
}

func (m *model) renderThoughtFull(t string) string {
	body := m.md.render(t, max(m.width-2, 20))
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = m.st.dim.Render("│ ") + m.st.dim.Render(l)
	}
	return m.st.dim.Render("∴ thought") + "\n" + strings.Join(lines, "\n")
}

// thoughtView is the live area's line for the reasoning being streamed:
// folded, or its last lines when thoughts are shown.
func (m *model) thoughtView() string {
	if !m.showThoughts {
		return m.st.dim.Render(abbreviate(fmt.Sprintf("∴ thinking… (%d words) · ctrl+t to show", m.thinking.words), m.width-1))
	}
	t := m.thinking.b.String()
	if len(t) > 2000 {
		t = t[len(t)-2000:]
	}
	return m.st.dim.Render(m.tail(wrap(sanitize(t), m.width), 6))
}

func formatCompressed(before, after int) string {
	return fmt.Sprintf("compressed the conversation: ~%d → ~%d tokens", before, after)
}
