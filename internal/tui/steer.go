package tui

import (
	"fmt"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/llm"
)

// steerBox holds the messages the user chose to send now (Ctrl+S) while
// the agent works: the loop takes them after the running batch, with its
// results, or when the model stops (loop.Steerer). What the loop has not
// taken when the interaction ends goes back to the queue, so nothing
// typed is lost.
type steerBox struct {
	mu    sync.Mutex
	texts []string // as typed, for the screen and to give back
	sent  []string // as sent: pastes and @paths expanded
	send  func(tea.Msg)
}

// steeredMsg says the loop took these messages: they are on their way.
type steeredMsg struct{ texts []string }

// TakeSteering implements loop.Steerer.
func (b *steerBox) TakeSteering() []llm.Part {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	texts, sent := b.texts, b.sent
	b.texts, b.sent = nil, nil
	b.mu.Unlock()
	if len(texts) == 0 {
		return nil
	}
	b.send(steeredMsg{texts: texts})
	return []llm.Part{{Text: strings.Join(sent, "\n\n")}}
}

func (b *steerBox) put(text, sent string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.texts = append(b.texts, text)
	b.sent = append(b.sent, sent)
}

// len is how many messages wait for the loop.
func (b *steerBox) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.texts)
}

// drain takes back what the loop did not take.
func (b *steerBox) drain() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	texts := b.texts
	b.texts, b.sent = nil, nil
	return texts
}

// sendNow hands the queued messages to the running interaction: they go
// after the running tools instead of when the turn ends.
func (m *model) sendNow() tea.Cmd {
	if !m.busy || len(m.queued) == 0 || m.drv.steer == nil {
		return nil
	}
	for _, text := range m.queued {
		m.drv.steer.put(text, m.expandAtPaths(m.expandPastes(text)))
	}
	m.queued = nil
	return nil
}

// steered shows the messages the loop took as the user's, where they
// join the conversation.
func (m *model) steered(msg steeredMsg) tea.Cmd {
	cmds := []tea.Cmd{m.commitText()}
	for _, t := range msg.texts {
		m.stats.prompts++
		cmds = append(cmds, m.commit(m.renderUser(t)))
	}
	return tea.Batch(cmds...)
}

// takeBackSteering returns to the queue what the loop did not take before
// the interaction ended; a cancelled one puts it back in the editor.
func (m *model) takeBackSteering(cancelled bool) {
	if m.drv.steer == nil {
		return
	}
	if texts := m.drv.steer.drain(); len(texts) > 0 {
		m.queued = append(texts, m.queued...)
		if cancelled {
			m.unqueue()
		}
	}
}

// queueHint says when the typed messages will go, under the working line.
func (m *model) queueHint() string {
	var parts []string
	if n := len(m.queued); n > 0 {
		parts = append(parts, fmt.Sprintf("%d queued: sent when the turn ends · ctrl+s: send after the running tools", n))
	}
	if m.drv.steer != nil {
		if n := m.drv.steer.len(); n > 0 {
			parts = append(parts, fmt.Sprintf("%d to send after the running tools", n))
		}
	}
	return strings.Join(parts, " · ")
}
