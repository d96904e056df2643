package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/turn"
)

// model is the program's state. Finished parts of the conversation are
// rendered once and printed above the live area (they go to the terminal's
// scrollback), so a streamed chunk re-renders only the message it extends.
type model struct {
	cfg  Config
	drv  *driver
	base context.Context

	width, height int
	input         textarea.Model
	spin          spinner.Model
	ticking       bool
	st            styles
	md            *markdown

	// printed holds every committed block in order; toPrint those not yet
	// handed to the terminal. One print is in flight at a time so blocks
	// cannot overtake each other.
	printed  []string
	toPrint  []string
	printing bool

	// The running interaction.
	busy       bool
	id         int
	cancel     context.CancelFunc
	cancelling bool
	text       strings.Builder
	thought    strings.Builder
	roundDone  bool // the round finished: more content is a new message
	cards      []*callView
	approval   *approval
	status     string

	queued  []string
	history []string
	histPos int
	draft   string
	usage   llm.Usage
	armed   bool // Ctrl+C pressed once on an idle, empty prompt
}

// approval is the open dialog.
type approval struct {
	call      callView
	reply     chan scheduler.Decision
	reasoning bool // typing the reason for a denial
	reason    []rune
}

// printedMsg reports that the last print reached the terminal.
type printedMsg struct{}

func newModel(cfg Config, drv *driver) *model {
	in := textarea.New()
	in.Placeholder = "Type a message · Enter to send · Ctrl+J for a new line · /help"
	in.ShowLineNumbers = false
	in.Prompt = "> "
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 6
	in.CharLimit = 0
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "shift+enter", "alt+enter"))
	in.Focus()
	m := &model{cfg: cfg, drv: drv, base: context.Background(), input: in, spin: spinner.New(spinner.WithSpinner(spinner.Dot)),
		st: newStyles(cfg.NoColor), width: 80, height: 24}
	if cfg.Width > 0 {
		m.width, m.height = cfg.Width, cfg.Height
	}
	m.md = newMarkdown(cfg.NoColor)
	m.input.SetWidth(m.width)
	if cfg.NoColor {
		m.input.SetStyles(plainTextareaStyles())
	}
	return m
}

func (m *model) Init() tea.Cmd {
	title := strings.TrimSpace("ply "+m.cfg.Version) + " · " + m.cfg.Model + " · /help for help"
	return m.commit(m.st.dim.Render(title))
}

// commit appends a finished block to the conversation.
func (m *model) commit(block string) tea.Cmd {
	m.printed = append(m.printed, block)
	m.toPrint = append(m.toPrint, block)
	return m.flush()
}

func (m *model) flush() tea.Cmd {
	if m.printing || len(m.toPrint) == 0 {
		return nil
	}
	m.printing = true
	s := strings.Join(m.toPrint, "\n")
	m.toPrint = m.toPrint[:0]
	return tea.Sequence(tea.Println(s), func() tea.Msg { return printedMsg{} })
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(msg.Width)
		return m, nil
	case printedMsg:
		m.printing = false
		return m, m.flush()
	case spinner.TickMsg:
		if !m.busy {
			m.ticking = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.approval == nil {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
		return m, nil
	case eventMsg:
		if msg.id != m.id {
			return m, nil
		}
		return m, m.event(msg.ev)
	case callMsg:
		m.updateCard(msg.call)
		return m, nil
	case approvalMsg:
		if m.approval != nil {
			// The scheduler asks one call at a time; a second request
			// means the first's asker gave up.
			m.approval.reply <- scheduler.Decision{Outcome: scheduler.OutcomeCancel}
		}
		m.approval = &approval{call: msg.call, reply: msg.reply}
		m.updateCard(msg.call)
		return m, nil
	case toolsDoneMsg:
		if msg.id != m.id {
			return m, nil
		}
		return m, m.commitCards()
	case doneMsg:
		if msg.id != m.id {
			return m, nil
		}
		return m, m.finish(msg)
	case noticeMsg:
		return m, m.commit(m.st.dim.Render(msg.text))
	}
	return m, nil
}

// key handles one key press. Ctrl+C and Esc mean "stop" while anything
// runs, before any other reading of the key.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.armed = false
	}
	switch s {
	case "ctrl+c":
		switch {
		case m.busy:
			m.stop()
		case m.input.Value() != "":
			m.input.Reset()
		case m.armed:
			return tea.Quit
		default:
			m.armed = true
		}
		return nil
	case "esc":
		if m.approval != nil && m.approval.reasoning {
			m.approval.reasoning, m.approval.reason = false, nil
			return nil
		}
		if m.busy {
			m.stop()
		}
		return nil
	}
	if m.approval != nil {
		return m.dialogKey(k)
	}
	switch s {
	case "enter":
		text := strings.TrimSpace(m.input.Value())
		if text == "" {
			return nil
		}
		m.input.Reset()
		m.remember(text)
		if m.busy {
			// Type-ahead: sent as the next prompt when this turn ends.
			m.queued = append(m.queued, text)
			return nil
		}
		if strings.HasPrefix(text, "/") {
			return m.command(text)
		}
		return m.submit(text)
	case "up":
		if m.input.Line() == 0 && m.histPos > 0 {
			if m.histPos == len(m.history) {
				m.draft = m.input.Value()
			}
			m.histPos--
			m.input.SetValue(m.history[m.histPos])
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 && m.histPos < len(m.history) {
			m.histPos++
			if m.histPos == len(m.history) {
				m.input.SetValue(m.draft)
			} else {
				m.input.SetValue(m.history[m.histPos])
			}
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

func (m *model) remember(text string) {
	if n := len(m.history); n == 0 || m.history[n-1] != text {
		m.history = append(m.history, text)
	}
	m.histPos, m.draft = len(m.history), ""
}

// dialogKey answers the open approval dialog.
func (m *model) dialogKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.approval
	if a.reasoning {
		switch k.String() {
		case "enter":
			m.answer(scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: strings.TrimSpace(string(a.reason))})
		case "backspace":
			if len(a.reason) > 0 {
				a.reason = a.reason[:len(a.reason)-1]
			}
		case "space":
			a.reason = append(a.reason, ' ')
		default:
			a.reason = append(a.reason, []rune(k.Text)...)
		}
		return nil
	}
	switch k.String() {
	case "y", "enter":
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce})
	case "a":
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeAllowAlways})
	case "n":
		a.reasoning = true
	}
	return nil
}

func (m *model) answer(d scheduler.Decision) {
	m.approval.reply <- d
	m.approval = nil
}

// stop cancels the running interaction; its doneMsg ends it.
func (m *model) stop() {
	if m.approval != nil {
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeCancel})
	}
	m.cancelRunning()
	m.cancelling = true
}

func (m *model) cancelRunning() {
	if m.cancel != nil {
		m.cancel()
	}
}

// submit starts an interaction for text.
func (m *model) submit(text string) tea.Cmd {
	cmds := []tea.Cmd{m.commit(m.renderUser(text))}
	m.id++
	ctx, cancel := context.WithCancel(m.base)
	m.busy, m.cancel, m.cancelling, m.status = true, cancel, false, ""
	m.resetRound()
	m.drv.start(ctx, m.id, []llm.Part{{Text: text}})
	if !m.ticking {
		m.ticking = true
		cmds = append(cmds, m.spin.Tick)
	}
	return tea.Batch(cmds...)
}

func (m *model) resetRound() {
	m.text.Reset()
	m.thought.Reset()
	m.roundDone = false
}

// event applies one stream event.
func (m *model) event(ev turn.Event) tea.Cmd {
	switch e := ev.(type) {
	case turn.Content:
		var cmd tea.Cmd
		if m.roundDone {
			// A continuation (next speaker, Stop hook) is a new message.
			cmd = m.commitText()
		}
		m.text.WriteString(e.Text)
		m.status = ""
		return cmd
	case turn.Thought:
		m.thought.WriteString(e.Text)
	case *turn.ToolCallRequest:
		m.updateCard(callView{id: e.CallID, name: e.Name, args: e.Args})
	case turn.Finished:
		if e.Usage != nil {
			m.usage.Add(e.Usage)
		}
		m.roundDone = true
		return m.commitText()
	case turn.Retry:
		m.resetRound()
		m.dropPendingCards()
		m.status = "retrying: " + abbreviate(e.Reason, 100)
	case turn.ChatCompressed:
		return m.commit(m.st.dim.Render(formatCompressed(e)))
	case turn.LoopDetected:
		return tea.Batch(m.commitText(), m.commit(m.st.err.Render("✗ stopped: "+e.Message)))
	case turn.Error:
		if m.cancelling {
			return nil
		}
		return tea.Batch(m.commitText(), m.commit(m.st.err.Render("✗ "+e.Err.Error())))
	case turn.UserCancelled:
	}
	return nil
}

// commitText moves the streamed reply (and its folded thought) into the
// conversation.
func (m *model) commitText() tea.Cmd {
	var cmds []tea.Cmd
	if m.thought.Len() > 0 {
		cmds = append(cmds, m.commit(m.renderThought(m.thought.String())))
	}
	if t := m.text.String(); strings.TrimSpace(t) != "" {
		cmds = append(cmds, m.commit(m.md.render(t, m.width)))
	}
	m.text.Reset()
	m.thought.Reset()
	return tea.Batch(cmds...)
}

func (m *model) updateCard(v callView) {
	for i, c := range m.cards {
		if c.id == v.id {
			if v.args == "" {
				v.args = c.args
			}
			m.cards[i] = &v
			return
		}
	}
	m.cards = append(m.cards, &v)
}

// dropPendingCards forgets calls the scheduler never saw: a retried
// stream's calls are not run.
func (m *model) dropPendingCards() {
	kept := m.cards[:0]
	for _, c := range m.cards {
		if c.state != "" {
			kept = append(kept, c)
		}
	}
	m.cards = kept
}

func (m *model) commitCards() tea.Cmd {
	var cmds []tea.Cmd
	for _, c := range m.cards {
		cmds = append(cmds, m.commit(m.renderCard(c, false)))
	}
	m.cards = nil
	return tea.Batch(cmds...)
}

// finish ends the interaction and sends what was typed meanwhile.
func (m *model) finish(d doneMsg) tea.Cmd {
	cmds := []tea.Cmd{m.commitText(), m.commitCards()}
	if d.err != nil {
		cmds = append(cmds, m.commit(m.st.err.Render("✗ "+d.err.Error())))
	}
	if d.cancelled {
		cmds = append(cmds, m.commit(m.st.dim.Render("⏹ cancelled")))
	}
	if m.approval != nil {
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeCancel})
	}
	m.cancelRunning()
	m.busy, m.cancel, m.cancelling, m.status = false, nil, false, ""
	if len(m.queued) > 0 && !d.cancelled {
		text := strings.Join(m.queued, "\n\n")
		m.queued = nil
		cmds = append(cmds, m.submit(text))
	}
	return tea.Batch(cmds...)
}

// command runs a slash command typed on an idle prompt.
func (m *model) command(text string) tea.Cmd {
	name, _, _ := strings.Cut(text, " ")
	switch name {
	case "/quit", "/exit":
		return tea.Quit
	case "/help":
		return m.commit(helpText)
	case "/clear":
		if m.cfg.Clear != nil {
			m.cfg.Clear()
		}
		m.usage = llm.Usage{}
		return tea.Sequence(tea.ClearScreen, m.commit(m.st.dim.Render("(new conversation)")))
	}
	return m.commit(m.st.err.Render("unknown command " + name + " (try /help)"))
}

const helpText = `Commands:
  /help    this help
  /clear   start a new conversation
  /quit    leave ply
Keys:
  Enter         send (while the agent works: queue for when it is done)
  Ctrl+J        new line
  Up/Down       previous/next prompt
  Esc, Ctrl+C   stop the running request or tool
  Ctrl+C twice  leave, on an empty prompt
In the approval dialog: y allow once, a allow always, n deny (then type a reason, Enter).`
