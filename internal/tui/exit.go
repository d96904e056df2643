package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// Summary is what a finished interactive session did, for the lines
// printed once the UI is gone.
type Summary struct {
	Elapsed time.Duration
	Prompts int
	Usage   llm.Usage
	// Cost is the usage priced at each request's model; Priced says
	// whether any price was known.
	Cost   float64
	Priced bool
}

// Summary reports what the session did; it is zero before Run returns.
func (u *UI) Summary() Summary {
	u.mu.Lock()
	m := u.last
	u.mu.Unlock()
	if m == nil {
		return Summary{}
	}
	return Summary{Elapsed: time.Since(m.stats.start), Prompts: m.stats.prompts, Usage: m.stats.usage,
		Cost: m.stats.cost, Priced: m.stats.priced}
}

// Text is the exit summary: time, prompts, tokens and cost, then how to
// go on with the session.
func (s Summary) Text(sessionID string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s · %s in / %s out tokens", s.Elapsed.Round(time.Second), plural(s.Prompts, "prompt"),
		count(s.Usage.InputTokens), count(s.Usage.OutputTokens))
	if s.Usage.CachedTokens > 0 {
		fmt.Fprintf(&b, " (%s cached)", count(s.Usage.CachedTokens))
	}
	if s.Priced {
		b.WriteString(" · ~" + money(s.Cost))
	}
	fmt.Fprintf(&b, "\nSession %s · resume with `ply -r %s`\n", sessionID, sessionID)
	return b.String()
}
