package tui

import (
	"context"
	"math"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
)

// model is the program's state. Finished parts of the conversation are
// rendered once and printed above the live area (they go to the terminal's
// scrollback), so the history is never rendered again: a frame draws only
// the live area, and a streamed chunk re-renders only the reply's open
// line (see mdStream).
type model struct {
	cfg  Config
	drv  *driver
	base context.Context

	width, height int
	inputCache    inputCache // the input box's last drawing
	input         textarea.Model
	spin          spinner.Model
	ticking       bool
	st            styles
	md            *markdown

	// toPrint holds the committed blocks not yet handed to the terminal.
	// One print is in flight at a time so blocks cannot overtake each
	// other. keep, set by tests, also keeps every block in printed.
	toPrint  []string
	printing bool
	// holdPrint keeps blocks queued while the screen is being cleared
	// (see clearThen); frameLines is the height of the last frame View
	// made, and replaced the frames it replaced lately (print.go).
	holdPrint  bool
	frameLines int
	replaced   []replacedFrame
	keep       bool
	printed    []string

	// The running interaction.
	busy       bool
	id         int
	cancel     context.CancelFunc
	cancelling bool
	reply      *mdStream // the reply being streamed
	thinking   thoughtBuf
	roundDone  bool // the round finished: more content is a new message
	cards      []*callView
	approval   *approval
	// waiting are approvals of other askers (background subagents, or
	// the main loop while one of theirs is open), oldest first.
	waiting    []approvalMsg
	question   *questionDialog // ask_user_question's dialog (question.go)
	mcpWait    []string        // MCP servers still connecting (mcp_wait.go)
	status     string
	retryable  bool // the last interaction failed in a model request: Ctrl+Y resends
	compacting bool // /compress runs
	// stopCompress cancels the running /compress.
	stopCompress context.CancelFunc

	// Tool output: the cards of the latest batch, and whether output is
	// shown unfolded (Ctrl+O).
	lastCards    []*callView
	expandOutput bool

	// Thoughts: the last one, and whether they are shown unfolded.
	lastThought  string
	showThoughts bool

	queued []string
	// prompt is the text of the last prompt typed and sent.
	prompt  string
	history []string
	histPos int
	draft   string
	pastes  []string // collapsed pastes, by number-1
	hint    string   // a line under the editor (search, a failed completion)
	picker  *picker  // the /resume session picker
	todos   []todo
	stats   stats
	ctxPct  int // context used in percent, -1 unknown
	ctx     ctxFigure
	footerC footerCache
	armed   bool
	// escArmed: the last key was Esc on an empty input; another opens /rewind.
	escArmed bool
	// search is Ctrl+R's history search while it runs (input_more.go).
	search *histSearch
	// cmds is the state of the commands in cmd_*.go.
	cmds cmdState

	// comp is the completion menu (complete_menu.go); progress is a
	// running command's line in the live area (progress.go).
	comp     completion
	progress string
}

// stats is what /stats reports.
type stats struct {
	start        time.Time
	prompts      int
	rounds       int
	toolCalls    int
	toolFailed   int
	usage        llm.Usage
	compressions int
	// cost is the usage priced at each request's model; priced says
	// whether any price was known.
	cost   float64
	priced bool
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
		st: newStyles(cfg.NoColor), width: 80, height: 24, ctxPct: -1}
	if cfg.Width > 0 {
		m.width, m.height = cfg.Width, cfg.Height
	}
	m.stats.start = time.Now()
	if drv != nil && drv.steer == nil {
		drv.steer = &steerBox{send: drv.send}
	}
	m.md = newMarkdown(cfg.NoColor)
	m.applyTheme(cfg.Extra.Theme) // cmd_theme.go
	m.input.SetWidth(m.width)
	if cfg.NoColor {
		// The editor's drawn cursor is reverse video: without styling the
		// terminal's own cursor shows where typing goes (see View).
		m.input.SetStyles(plainTextareaStyles())
		m.input.SetVirtualCursor(false)
	}
	return m
}

func (m *model) Init() tea.Cmd {
	title := strings.TrimSpace("ply "+m.cfg.Version) + " · " + m.cfg.Model + " · /help for help"
	// Nothing is printed before the renderer has drawn a first frame:
	// until then it takes the whole screen for the frame, and a print
	// would land under it (see clearThen).
	m.holdPrint = true
	// The renderer's first frame, until it draws one of View's, is the
	// whole screen: prints are sized for it meanwhile (print.go).
	m.replaced = append(m.replaced, replacedFrame{lines: math.MaxInt32, at: m.now()})
	cmds := []tea.Cmd{tea.Tick(clearDelay, func(time.Time) tea.Msg { return clearedMsg{} }), m.commit(m.st.dim.Render(title))}
	if m.cfg.Notice != "" {
		cmds = append(cmds, m.commit(m.st.warn.Render(sanitizeLines(m.cfg.Notice))))
	}
	if len(m.cfg.History) > 0 {
		cmds = append(cmds, m.commit(m.renderHistory(m.cfg.History)))
	}
	m.askSchedules() // schedresume.go
	m.refreshContext()
	if len(m.cfg.First) > 0 || m.cfg.FirstType == client.Retry {
		cmds = append(cmds, m.commit(m.st.dim.Render("↻ going on with the interrupted turn")),
			m.start(m.cfg.First, m.cfg.FirstType))
		if m.cfg.FirstPrompt != "" {
			// -i on a resumed session: sent once the turn is done.
			m.queued = append(m.queued, m.cfg.FirstPrompt)
		}
	} else if m.cfg.FirstPrompt != "" {
		cmds = append(cmds, m.submit(m.cfg.FirstPrompt))
	}
	return tea.Sequence(cmds...)
}

// commit appends a finished block to the conversation.
func (m *model) commit(block string) tea.Cmd {
	block = fitWords(block, m.width) // wrapwords.go
	if m.keep {
		m.printed = append(m.printed, block)
	}
	m.toPrint = append(m.toPrint, block)
	return m.flush()
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m, m.resize(msg.Width, msg.Height)
	case printedMsg:
		m.printing = false
		return m, m.flush()
	case clearedMsg:
		m.holdPrint = false
		return m, m.flush()
	case spinner.TickMsg:
		if !m.busy && !m.compacting {
			m.ticking = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		return m, m.paste(msg.Content)
	case editorMsg:
		return m, m.editorDone(msg)
	case eventMsg:
		if msg.id != m.id {
			return m, nil
		}
		return m, m.event(msg.ev)
	case callMsg:
		m.updateCard(msg.call)
		return m, nil
	case roundMsg:
		return m, m.announce(msg.r)
	case outputMsg:
		m.liveOutput(msg)
		return m, nil
	case approvalMsg:
		m.openApproval(msg)
		return m, nil
	case mcpWaitMsg:
		m.mcpWait = msg.names
		return m, nil
	case steeredMsg:
		return m, m.steered(msg)
	case questionMsg:
		m.openQuestion(msg)
		return m, nil
	case inboxMsg:
		return m, m.fromInbox()
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
	case compressedMsg:
		return m, m.compressed(msg)
	case funcMsg:
		return m, msg(m)
	case noticeMsg:
		return m, m.commit(m.st.dim.Render(sanitize(msg.text)))
	}
	return m, nil
}

// resize takes a new window size. What is printed stays as the terminal
// reflows it; the live area and everything committed later use the new
// width, and the reply being streamed renders its open line again.
func (m *model) resize(w, h int) tea.Cmd {
	m.width, m.height = max(w, 20), max(h, 5)
	m.input.SetWidth(m.width)
	if m.reply != nil {
		m.reply.width, m.reply.tailOK = m.width, false
	}
	return nil
}

// submit starts an interaction for text.
func (m *model) submit(text string) tea.Cmd {
	m.prompt = text
	cmds := []tea.Cmd{m.commit(m.renderUser(text)), m.connectingNotice()}
	m.stats.prompts++
	sent := m.expandAtPaths(m.expandPastes(text))
	return tea.Batch(append(cmds, m.start(append(m.takeShellContext(), llm.Part{Text: sent}), client.UserQuery))...)
}

// retry resends the history as it stands after a failed request (Ctrl+Y):
// the prompt is in the history already and is not pushed again.
func (m *model) retry() tea.Cmd {
	if m.busy {
		return m.commit(m.st.dim.Render("a request is running: Ctrl+Y retries one that failed"))
	}
	if !m.retryable {
		return m.commit(m.st.dim.Render("nothing to retry"))
	}
	return tea.Batch(m.commit(m.st.dim.Render("↻ retrying the last request")), m.start(nil, client.Retry))
}

func (m *model) start(parts []llm.Part, typ client.SendType) tea.Cmd {
	return m.startLoop(loop.Input{Parts: parts, Type: typ})
}

// startLoop starts an interaction that runs the loop from in.
func (m *model) startLoop(in loop.Input) tea.Cmd {
	m.id++
	ctx, cancel := context.WithCancel(m.base)
	m.busy, m.cancel, m.cancelling, m.status, m.retryable = true, cancel, false, "", false
	m.resetRound()
	m.drv.start(ctx, m.id, in)
	return m.tick()
}

func (m *model) tick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return m.spin.Tick
}

// stop cancels the running interaction; its doneMsg ends it.
func (m *model) stop() {
	if m.approval != nil {
		m.answer(scheduler.Decision{Outcome: scheduler.OutcomeCancel})
	}
	m.closeQuestion(context.Canceled)
	m.cancelRunning()
	m.cancelling = true
}

// stopCompressing cancels /compress; its compressedMsg ends it.
func (m *model) stopCompressing() {
	if m.stopCompress != nil {
		m.stopCompress()
	}
	m.cancelling = true
}

func (m *model) cancelRunning() {
	if m.cancel != nil {
		m.cancel()
	}
}

// finish ends the interaction and sends what was typed meanwhile.
func (m *model) finish(d doneMsg) tea.Cmd {
	cmds := []tea.Cmd{m.commitText(), m.commitCards()}
	if d.err != nil {
		cmds = append(cmds, m.commit(m.st.err.Render("✗ "+d.err.Error())))
	}
	if d.cancelled {
		cmds = append(cmds, m.commit(m.st.dim.Render("⏹ cancelled")))
		m.retryable = false
	}
	if m.retryable {
		cmds = append(cmds, m.commit(m.st.dim.Render("Ctrl+Y to retry")))
	}
	m.cancelMainApprovals()
	m.closeQuestion(context.Canceled) // a question the ended interaction left open
	m.cancelRunning()
	m.busy, m.cancel, m.cancelling, m.status = false, nil, false, ""
	m.refreshContext()
	m.takeBackSteering(d.cancelled) // steer.go
	if d.unsaved {
		// Nothing more can be recorded: what was typed stays in the
		// input box, the prompt too when it was not sent.
		if d.unsent && m.prompt != "" {
			m.queued = append([]string{m.prompt}, m.queued...)
		}
		m.unqueue()
		return tea.Batch(append(cmds, m.armIdle())...)
	}
	cmds = append(cmds, m.sendQueued(d.cancelled))
	if !d.cancelled {
		cmds = append(cmds, m.fromInbox())
	}
	cmds = append(cmds, m.armIdle()) // idle.go
	return tea.Batch(cmds...)
}

// sendQueued sends what was typed while the agent worked, as one prompt.
func (m *model) sendQueued(cancelled bool) tea.Cmd {
	if len(m.queued) == 0 || cancelled || m.busy || m.compacting {
		return nil
	}
	text := strings.Join(m.queued, "\n\n")
	m.queued = nil
	return m.submit(text)
}

func (m *model) refreshContext() {
	s, ok := probe[ContextMeter](m)
	if !ok {
		return
	}
	used, window := s.ContextUsed()
	if window > 0 {
		m.ctxPct = min(used*100/window, 999)
	}
	m.ctx = ctxFigure{used: used, window: window}
	_, m.ctx.known = s.ModelInfo()
}

// expandAtPaths appends the contents of the prompt's @path references,
// when the session does (Expander).
func (m *model) expandAtPaths(prompt string) string {
	if s, ok := probe[Expander](m); ok {
		return s.ExpandAtPaths(prompt)
	}
	return prompt
}
