package chat

import (
	"context"
	"sort"
	"strings"

	"github.com/plyhq/ply/internal/llm"
)

// Under context pressure (before a request past the configured share of
// the window, or after the provider refused one as too long) the chat
// makes room in this order, stopping as soon as the history fits:
//
//  1. the tool results of earlier turns are cut, oldest first, each level
//     of cutLevels in turn;
//  2. the older history is summarised;
//  3. results cut before and kept by the summary are restored, newest
//     first, as far as they fit (restore);
//  4. only then are the results of the current turn cut: the results the
//     request sends back for the calls the model just made. They keep at
//     least currentFloor between them, however far past the threshold
//     the estimate still is: a result the model cannot read makes it ask
//     again, in ever smaller pieces, and the request goes out as it is.
//
// The floor gives way in one case only: the provider refused the request,
// and even with all else cut and summarised the window cannot hold the
// current results at their floor beside the system prompt and the tool
// declarations (a tiny window). Then they are cut as far as the request
// must shrink, as a request with less of them beats no request at all.

const (
	// currentShare is the share of the context window that the current
	// turn's results keep at least, together, when they must be cut: a
	// quarter of the window. In a 16k-token window that is about 16 KB of
	// text (some 400 lines of code), in a 32k one 32 KB.
	currentShare = 0.25
	// minCurrentFloor is the least they keep in a tiny window, and
	// unknownCurrentFloor what they keep when the window is not known.
	minCurrentFloor     = 4 << 10
	unknownCurrentFloor = 8 << 10
	// bytesPerToken is the estimate's four characters a token.
	bytesPerToken = 4
	// restoreShare is the share of the history's budget that restored
	// results may fill: the rest is left for the next rounds, so that a
	// restored result is not cut again at the next request.
	restoreShare = 0.8
	// cutNoteRoom is about the size of the note in a cut result.
	cutNoteRoom = 512
)

// original is the full text of a cut tool result, and where the note of a
// cut says it is.
type original struct{ full, where string }

// currentFloor is the size, in bytes, the current turn's results keep
// between them, for a window of the given size in tokens (0: unknown).
func currentFloor(window int) int {
	if window <= 0 {
		return unknownCurrentFloor
	}
	return max(int(currentShare*float64(window))*bytesPerToken, minCurrentFloor)
}

// currentStart returns the index of the current turn's first entry: the
// entries after the last model reply, whose tool results the next request
// sends back.
func currentStart(h []llm.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleModel {
			return i + 1
		}
	}
	return 0
}

// currentStart is currentStart of the history, read in place.
func (c *Chat) currentStart() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return currentStart(c.history)
}

// historyTokens is the calibrated estimate of the history, read in place
// rather than from a copy of it.
func (c *Chat) historyTokens() int {
	c.mu.Lock()
	n := EstimateTokens(c.history)
	c.mu.Unlock()
	return c.calibrated(n)
}

// relieve makes the history fit budget (calibrated tokens, the history
// alone) in the order described above. rule says where a summary may end;
// with always set, the older history is summarised even when cutting
// older results sufficed. floor is what the current turn's results keep
// (currentFloor). It reports whether the history changed.
func (c *Chat) relieve(ctx context.Context, budget, floor int, rule splitRule, always bool) bool {
	changed := c.cutResults(ctx, budget, 0, c.currentStart(), cutLevels, false)
	if always || c.historyTokens() > budget {
		if _, ok := c.compress(ctx, rule, "auto", ""); ok {
			changed = true
			c.restore(int(restoreShare * float64(budget)))
		}
	}
	if c.historyTokens() > budget {
		// The summary kept older results, or none could be made: cut
		// those older results further, then the current ones.
		if c.cutResults(ctx, budget, 0, c.currentStart(), cutLevels, false) {
			changed = true
		}
		if c.cutCurrent(ctx, budget, floor) {
			changed = true
		}
	}
	return changed
}

// cutResults cuts the tool results of the history's entries from..to-1 to
// a head and a tail, at each of levels in turn, oldest first (largest
// first with largestFirst), until the history's calibrated estimate is at
// most budget or nothing is left to cut. The full text is saved with the
// session when a Spiller is set. It reports whether anything was cut.
func (c *Chat) cutResults(ctx context.Context, budget, from, to int, levels []cutLevel, largestFirst bool) bool {
	hist := c.History()
	est := c.calibrated(EstimateTokens(hist))
	to = min(to, len(hist))
	cut := false
	for _, lv := range levels {
		if est <= budget {
			break
		}
		type ref struct{ msg, part, size int }
		var big []ref
		for i := from; i < to; i++ {
			for j, p := range hist[i].Parts {
				if p.Response != nil && len(p.Response.Output) > lv.above {
					big = append(big, ref{i, j, len(p.Response.Output)})
				}
			}
		}
		if largestFirst {
			sort.SliceStable(big, func(a, b int) bool { return big[a].size > big[b].size })
		}
		for _, r := range big {
			if est <= budget {
				break
			}
			m := &hist[r.msg]
			m.Parts = append([]llm.Part(nil), m.Parts...) // copy on write: hist shares parts with c.history
			resp := *m.Parts[r.part].Response
			old := estimateMessage(m)
			resp.Output = c.cutOutput(ctx, &resp, lv)
			m.Parts[r.part].Response = &resp
			est -= c.calibrated(old - estimateMessage(m))
			cut = true
		}
	}
	if cut {
		c.commit(hist)
	}
	return cut
}

// commit makes hist, a changed copy of the history, the history, keeping
// entries pushed since the copy was taken.
func (c *Chat) commit(hist []llm.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.history) >= len(hist) {
		c.history = append(hist, c.history[len(hist):]...)
		c.partial = -1
	}
}

// cutCurrent cuts the current turn's results, largest first, as far as
// the history must shrink to fit budget, but never below floor bytes
// between them: each keeps an even share of what they may take, a result
// smaller than its share leaving the rest to the others.
func (c *Chat) cutCurrent(ctx context.Context, budget, floor int) bool {
	hist := c.History()
	from := currentStart(hist)
	var sizes []int
	total := 0
	for i := from; i < len(hist); i++ {
		for _, p := range hist[i].Parts {
			if p.Response != nil {
				sizes = append(sizes, len(p.Response.Output))
				total += len(p.Response.Output)
			}
		}
	}
	est := c.calibrated(EstimateTokens(hist))
	if est <= budget || len(sizes) == 0 {
		return false
	}
	// What the results may take: the room the rest of the history leaves
	// them, converted back from calibrated tokens, but not below floor.
	shed := (est - budget) * bytesPerToken * 1000 / max(c.calibrated(1000), 1)
	keep := max(floor, total-shed-cutNoteRoom*len(sizes))
	share, ok := evenShare(sizes, keep)
	if !ok {
		return false
	}
	last := cutLevels[len(cutLevels)-1]
	share = max(share, last.head+last.tail)
	head := share * 2 / 3
	lv := cutLevel{above: share + cutNoteRoom, head: head, tail: share - head}
	return c.cutResults(ctx, budget, from, len(hist), []cutLevel{lv}, true)
}

// evenShare returns the size each of sizes is cut to so that together they
// take about keep: results smaller than an even share keep whole and leave
// what they do not use to the others. It reports false when all fit.
func evenShare(sizes []int, keep int) (int, bool) {
	s := append([]int(nil), sizes...)
	sort.Ints(s)
	for i, n := range s {
		share := keep / (len(s) - i)
		if n > share {
			return max(share, 0), true
		}
		keep -= n
	}
	return 0, false
}

// restore puts back the full text of cut results, newest first, while the
// history's calibrated estimate stays at most budget; a result whose full
// text does not fit gets the gentlest cut that does. It forgets the full
// text of results no longer in the history (summarised, cleared). It
// reports whether anything was restored.
func (c *Chat) restore(budget int) bool {
	c.mu.Lock()
	hist := append([]llm.Message(nil), c.history...)
	live := c.pruneOriginalsLocked()
	orig := c.originals
	c.mu.Unlock()
	if len(live) == 0 {
		return false
	}
	est := c.calibrated(EstimateTokens(hist))
	restored := false
	for i := len(hist) - 1; i >= 0; i-- {
		for j := len(hist[i].Parts) - 1; j >= 0; j-- {
			p := hist[i].Parts[j]
			if p.Response == nil || !live[p.Response.ID] {
				continue
			}
			c.mu.Lock()
			o := orig[p.Response.ID]
			c.mu.Unlock()
			now := p.Response.Output
			if !isCutOf(now, o.full) {
				continue
			}
			candidates := []string{o.full}
			for _, lv := range cutLevels {
				if len(o.full) > lv.above {
					candidates = append(candidates, cutText(o.full, o.where, lv))
				}
			}
			for _, s := range candidates {
				if len(s) <= len(now) {
					break
				}
				m := &hist[i]
				grow := c.calibrated((len(s) - len(now)) / bytesPerToken)
				if est+grow > budget {
					continue
				}
				m.Parts = append([]llm.Part(nil), m.Parts...) // copy on write
				resp := *m.Parts[j].Response
				resp.Output = s
				m.Parts[j].Response = &resp
				est += grow
				restored = true
				break
			}
		}
	}
	if restored {
		c.commit(hist)
	}
	return restored
}

// isCutOf reports whether out is a cut of full: it holds the cut note and
// starts with full's head.
func isCutOf(out, full string) bool {
	loc := cutNote().FindStringIndex(out)
	return loc != nil && len(out) < len(full) && strings.HasPrefix(full, out[:loc[0]])
}

// pruneOriginalsLocked forgets the full text of cut results that the
// history no longer holds, and returns the ids of those it does. c.mu is
// held.
func (c *Chat) pruneOriginalsLocked() map[string]bool {
	live := map[string]bool{}
	if len(c.originals) == 0 {
		return live
	}
	for i := range c.history {
		for _, p := range c.history[i].Parts {
			if p.Response != nil && c.originals[p.Response.ID].full != "" {
				live[p.Response.ID] = true
			}
		}
	}
	for id := range c.originals {
		if !live[id] {
			delete(c.originals, id)
		}
	}
	return live
}
