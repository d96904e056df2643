package tui

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/plyhq/ply/internal/llm"
)

// ctxFigure is the context the next request will take: the tokens the
// provider reported for the last one plus an estimate of what was added
// since, against the model's window (known false: assumed).
type ctxFigure struct {
	used, window int
	known        bool
}

// footerKey is everything the footer shows; the footer is drawn again
// only when it changes, since every streamed chunk draws a frame.
type footerKey struct {
	armed, retry bool
	width        int
	model, mode  string
	ctx          ctxFigure
	in, out      int
	cost         float64
	priced       bool
	ide          bool // connected to the editor
}

type footerCache struct {
	key  footerKey
	view string
}

func (m *model) footer() string {
	k := footerKey{armed: m.armed, retry: m.retryable && !m.busy, width: m.width, model: m.cfg.Model, mode: m.mode(),
		ctx: m.ctx, in: m.stats.usage.InputTokens, out: m.stats.usage.OutputTokens, cost: m.stats.cost, priced: m.stats.priced}
	if s, ok := probe[IDEController](m); ok {
		k.ide = s.IDEConnected()
	}
	if m.footerC.view == "" || k != m.footerC.key {
		m.footerC = footerCache{key: k, view: m.drawFooter(k)}
	}
	return m.footerC.view + m.connectingLine() // mcp_wait.go
}

// drawFooter: the model, the approval mode in its colour, the context
// used, the session's tokens and cost.
func (m *model) drawFooter(k footerKey) string {
	if k.armed {
		return m.st.warn.Render("Press Ctrl+C again to exit")
	}
	mode := k.mode + " mode"
	if st, ok := m.st.modes[k.mode]; ok {
		mode = st.Render(mode)
	}
	rest := ""
	if k.ctx.window > 0 {
		rest += " · " + contextText(k.ctx)
	}
	rest += fmt.Sprintf(" · %s in / %s out", count(k.in), count(k.out))
	if k.priced {
		rest += " · " + money(k.cost)
	}
	if k.ide {
		rest += " · IDE connected"
	}
	if k.retry {
		rest += " · ctrl+y retry"
	}
	s := m.st.dim.Render(sanitize(k.model)+" · ") + mode + m.st.dim.Render(rest)
	return ansi.Truncate(s, max(m.width-1, 10), "…")
}

// contextText says the context figure: "ctx 4.2k/128k (3%)", with a
// "~" on a window that is assumed.
func contextText(c ctxFigure) string {
	w := count(c.window)
	if !c.known {
		w = "~" + w
	}
	return fmt.Sprintf("ctx %s/%s (%d%%)", count(c.used), w, min(c.used*100/max(c.window, 1), 999))
}

// money says a cost in dollars, with the precision small sums need.
func money(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd < 0.01:
		return fmt.Sprintf("$%.4f", usd)
	case usd < 100:
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.0f", usd)
}

// addCost prices one request's usage at the current model's prices.
func (m *model) addCost(u *llm.Usage) {
	s, ok := probe[ContextMeter](m)
	if !ok {
		return
	}
	info, _ := s.ModelInfo()
	if info.Prices.Zero() {
		return
	}
	m.stats.cost += info.Prices.Cost(u.InputTokens, u.CachedTokens, u.OutputTokens)
	m.stats.priced = true
}
