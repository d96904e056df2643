package chat

import (
	"fmt"
	"sort"

	"github.com/plyhq/ply/internal/llm"
)

// What a text cut for a summary request keeps of its ends.
const (
	summaryHead = 2 << 10
	summaryTail = 1 << 10
)

// fitForSummary returns msgs, the history a summary request sends, made
// to fit the context window beside the request's system prompt and an
// answer: the largest texts and tool results are cut to their ends first,
// then the oldest entries are left out, the last always kept. The window
// is the configured one, or the smaller one a provider stated (see
// window). msgs is not changed. Without a known window it is returned as
// it is.
func (c *Chat) fitForSummary(msgs []llm.Message, system string) []llm.Message {
	window := c.window()
	if window <= 0 {
		return msgs
	}
	reserve := c.cfg.MaxOutputTokens
	if reserve <= 0 {
		reserve = defaultReserve
	}
	budget := int(fitShare*float64(window)) - reserve - c.calibrated(len(system)/bytesPerToken)
	est := c.calibrated(EstimateTokens(msgs))
	if est <= budget {
		return msgs
	}
	msgs = append([]llm.Message(nil), msgs...)
	type ref struct{ msg, part, size int }
	var big []ref
	for i := range msgs {
		for j, p := range msgs[i].Parts {
			if n := partSize(p); n > summaryHead+summaryTail+cutNoteRoom {
				big = append(big, ref{i, j, n})
			}
		}
	}
	sort.SliceStable(big, func(a, b int) bool { return big[a].size > big[b].size })
	for _, r := range big {
		if est <= budget {
			return msgs
		}
		m := &msgs[r.msg]
		old := estimateMessage(m)
		m.Parts = append([]llm.Part(nil), m.Parts...) // copy on write
		m.Parts[r.part] = cutForSummary(m.Parts[r.part])
		est -= c.calibrated(old - estimateMessage(m))
	}
	// Left out from the oldest on, up to a prompt: a request must not
	// start with a reply or with results whose calls it left out.
	for len(msgs) > 1 && (est > budget || msgs[0].Role != llm.RoleUser || hasResponses(&msgs[0])) {
		est -= c.calibrated(estimateMessage(&msgs[0]))
		msgs = msgs[1:]
	}
	return msgs
}

// partSize is the size of p's text or tool output, whichever it holds.
func partSize(p llm.Part) int {
	if p.Response != nil {
		return len(p.Response.Output)
	}
	return len(p.Text)
}

// cutForSummary returns p with its text or tool output cut to its ends
// around a note.
func cutForSummary(p llm.Part) llm.Part {
	cut := func(s string) string {
		head, tail := cutPrefix(s, summaryHead), cutSuffix(s, summaryTail)
		return head + fmt.Sprintf("\n[… %d bytes left out of this request, which asks for a summary …]\n", len(s)-len(head)-len(tail)) + tail
	}
	if p.Response != nil {
		r := *p.Response
		r.Output = cut(r.Output)
		p.Response = &r
		return p
	}
	p.Text = cut(p.Text)
	return p
}
