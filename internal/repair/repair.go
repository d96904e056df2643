// Package repair keeps a conversation history well formed for backends that
// reject a function call without exactly one function response, or a
// response without its call.
//
// It owns the pairing of calls and responses: it synthesises an error
// response for a call nobody answered, moves a response that sits in the
// wrong entry to the user entry right after its call, deletes duplicate and
// orphaned responses, puts responses before text, and drops entries that are
// (or become) empty. It also answers the question of which new call ids
// were already answered.
//
// It must not touch what the model said (text, thoughts and calls are never
// rewritten, reordered or deleted), must not decide how to resume an
// interrupted session (package resume does), and must not run tools or speak
// to a provider. It never modifies the history it is given.
package repair

import (
	"fmt"

	"github.com/plyhq/ply/internal/llm"
)

// Options tunes Repair for the two places it runs.
type Options struct {
	// SkipTrailing leaves the unanswered calls of the last model entry
	// without a synthetic response. Everything else is still repaired,
	// including the responses that already answer that entry.
	//
	// The chat layer repairs after it has pushed the user content, so the
	// last model entry's answers are in that content and whatever is still
	// missing must be synthesised before the request goes out: it uses
	// false. On session load the dangling tail is the interruption
	// classifier's evidence (package resume turns it into an
	// interrupted_turn whose resume sends the error responses as a
	// ToolResult): load with true, then classify.
	SkipTrailing bool
}

// Report counts what a repair changed, for logging. The zero Report means
// the history was already well formed and was returned as it was.
type Report struct {
	Synthesized int // error responses added for calls nobody answered
	Moved       int // responses moved to the user entry right after their call
	Reordered   int // user entries whose responses were put before their other parts
	Duplicates  int // responses deleted because their call was already answered
	Orphans     int // responses deleted because no earlier model entry made the call
	Inserted    int // user entries created to hold responses
	Dropped     int // entries removed because they were or became empty
}

// Changed reports whether the repair changed anything.
func (r Report) Changed() bool { return r != Report{} }

// Deleted is the number of response parts deleted (duplicates and orphans).
func (r Report) Deleted() int { return r.Duplicates + r.Orphans }

func (r Report) String() string {
	if !r.Changed() {
		return "history well formed"
	}
	return fmt.Sprintf("synthesized %d, moved %d, reordered %d, deleted %d duplicate and %d orphaned, inserted %d entries, dropped %d entries",
		r.Synthesized, r.Moved, r.Reordered, r.Duplicates, r.Orphans, r.Inserted, r.Dropped)
}

// Repair returns history with every function call of every model entry
// answered exactly once in the user entry right after it, as the chat layer
// needs it before sending (Options{}). See RepairWith.
func Repair(history []llm.Message) ([]llm.Message, Report) {
	return RepairWith(history, Options{})
}

// RepairWith returns a repaired copy of history and what it changed. After
// it, for every model entry with calls (except the last one under
// SkipTrailing, which may stay partly unanswered):
//
//   - the next entry is a user entry holding exactly one response per
//     distinct call id of that model entry, before any other part;
//   - no response exists anywhere else, and none without its call;
//   - no entry is empty.
//
// A response belongs to the nearest earlier model entry that made a call
// with its id (providers may replay ids, so an id can be owed twice); the
// first response found for a call is kept, a later one is a duplicate. This
// keeps a synthetic response planted while the real result was in flight,
// and drops the late real one: the pairing must hold on every request.
//
// Repairing twice changes nothing more. Unchanged entries share their parts
// with the input; history itself is never modified. When nothing needs
// repair the input slice is returned. Runs in time linear in the number of
// parts; a history already well formed, as the chat's is before nearly
// every request, is recognised without the map of call ids a repair needs.
func RepairWith(history []llm.Message, opts Options) ([]llm.Message, Report) {
	if !opts.SkipTrailing && wellFormed(history) {
		return history, Report{}
	}
	p := planRepair(history, opts)
	if p.noop() {
		return history, Report{}
	}
	return applyRepair(history, p)
}

// owed is one call that needs exactly one answer.
type owed struct {
	call   *llm.FunctionCall
	answer *llm.Part // the response kept for it; nil while none is known
	moved  bool      // answer lives elsewhere and must be placed in the slot
	synth  bool      // nobody answered: a synthetic error goes in the slot
}

// turn is one model entry with calls, as scanModelTurn found it. Its owed
// calls are p.owed[lo:hi]: one backing array for the whole history keeps
// planning at a few allocations however long the history is.
type turn struct {
	index  int // of the model entry in history
	lo, hi int
}

// scanModelTurn appends to buf the calls of the model entry at history[i]
// that need answers: one per distinct call id, in call order. A repeated id
// inside one entry is answered once; the layers above drop such a batch
// and repair never deletes a call.
func scanModelTurn(history []llm.Message, i int, buf []owed) (turn, []owed) {
	t := turn{index: i, lo: len(buf)}
	var seen map[string]struct{} // only for an entry with many calls
	parts := history[i].Parts
	for k := range parts {
		c := parts[k].Call
		if c == nil {
			continue
		}
		dup := false
		// Entries hold a handful of calls: a scan beats a map. Past a
		// few, a set keeps an entry of thousands of calls linear.
		if n := len(buf) - t.lo; n > 16 && seen == nil {
			seen = make(map[string]struct{}, 2*n)
			for j := t.lo; j < len(buf); j++ {
				seen[buf[j].call.ID] = struct{}{}
			}
		}
		if seen != nil {
			_, dup = seen[c.ID]
			seen[c.ID] = struct{}{}
		} else {
			for j := t.lo; j < len(buf); j++ {
				if buf[j].call.ID == c.ID {
					dup = true
					break
				}
			}
		}
		if !dup {
			buf = append(buf, owed{call: c})
		}
	}
	t.hi = len(buf)
	return t, buf
}

// partRef names one part of one entry.
type partRef struct{ entry, part int }

// plan is everything applyRepair will do, decided without touching history.
type plan struct {
	turns   []turn    // model entries with calls, in history order
	owed    []owed    // the calls of all turns, see turn
	drops   []partRef // response parts to delete or move away, ascending
	reorder []int     // user entries whose kept responses follow other parts, ascending
	anyFill bool      // some turn needs parts placed in its slot
	empty   bool      // some entry has no parts at all
	report  Report
}

func (p *plan) noop() bool {
	return len(p.drops) == 0 && len(p.reorder) == 0 && !p.anyFill && !p.empty
}

// needsFill reports whether the slot of t must receive moved or
// synthesised responses.
func (p *plan) needsFill(t turn) bool {
	for _, o := range p.owed[t.lo:t.hi] {
		if o.moved || o.synth {
			return true
		}
	}
	return false
}

// slotIsNext reports whether the slot of the model entry at i is the
// existing entry i+1 (a user entry) rather than a new one.
func slotIsNext(history []llm.Message, i int) bool {
	return i+1 < len(history) && history[i+1].Role != llm.RoleModel
}

// planRepair walks history once, forward, and decides per response whether
// it stays, moves or goes, and per call whether it needs a synthetic answer.
func planRepair(history []llm.Message, opts Options) *plan {
	calls := 0
	for i := range history {
		if history[i].Role == llm.RoleModel {
			for k := range history[i].Parts {
				if history[i].Parts[k].Call != nil {
					calls++
				}
			}
		}
	}
	p := &plan{owed: make([]owed, 0, calls)}
	// owner maps a call id to the nearest earlier call with it, as an
	// index into p.owed; sized once, since rehashing dominated the cost.
	owner := make(map[string]int, calls)
	lastModel := -1

	for i := range history {
		e := &history[i]
		if len(e.Parts) == 0 {
			p.empty = true
			continue
		}
		inSlot := e.Role != llm.RoleModel && len(p.turns) > 0 &&
			p.turns[len(p.turns)-1].index == i-1
		sawOther, reordered := false, false
		for k := range e.Parts {
			part := &e.Parts[k]
			if part.Response == nil {
				sawOther = true
				continue
			}
			r, ok := owner[part.Response.ID]
			switch {
			case !ok:
				p.report.Orphans++
				p.drops = append(p.drops, partRef{i, k})
			case p.owed[r].answer != nil:
				p.report.Duplicates++
				p.drops = append(p.drops, partRef{i, k})
			default:
				o := &p.owed[r]
				o.answer = part
				if inSlot && r >= p.turns[len(p.turns)-1].lo {
					if sawOther && !reordered {
						reordered = true
						p.reorder = append(p.reorder, i)
						p.report.Reordered++
					}
				} else {
					o.moved = true
					p.report.Moved++
					p.drops = append(p.drops, partRef{i, k})
				}
			}
		}
		if e.Role != llm.RoleModel {
			continue
		}
		// Responses in a model entry are misplaced; the entry survives
		// only if it holds something else.
		if sawOther {
			lastModel = i
		}
		// Calls are registered after this entry's own responses were
		// handled: an answer must come after its call.
		var t turn
		t, p.owed = scanModelTurn(history, i, p.owed)
		if t.lo == t.hi {
			continue
		}
		p.turns = append(p.turns, t)
		for c := t.lo; c < t.hi; c++ {
			owner[p.owed[c].call.ID] = c
		}
	}

	for _, t := range p.turns {
		if opts.SkipTrailing && t.index == lastModel {
			continue
		}
		for c := t.lo; c < t.hi; c++ {
			if p.owed[c].answer == nil {
				p.owed[c].synth = true
				p.report.Synthesized++
			}
		}
	}
	for ti := range p.turns {
		if p.needsFill(p.turns[ti]) {
			p.anyFill = true
			if !slotIsNext(history, p.turns[ti].index) {
				p.report.Inserted++
			}
		}
	}
	return p
}

// fill returns the parts to place in the slot of t, in call order: moved
// responses and synthetic ones.
func (p *plan) fill(t turn) []llm.Part {
	var out []llm.Part
	for i := t.lo; i < t.hi; i++ {
		o := &p.owed[i]
		switch {
		case o.synth:
			out = append(out, InterruptedResponse(*o.call))
		case o.moved:
			out = append(out, *o.answer)
		}
	}
	return out
}

// applyRepair is the only function that changes the history: it builds the
// repaired copy in one forward pass. Splicing the slice in place, entry by
// entry, would be quadratic on a long broken history; one rebuild deletes
// (the ascending drop list read with a cursor), inserts and drops empty
// entries in linear time.
func applyRepair(history []llm.Message, p *plan) ([]llm.Message, Report) {
	rep := p.report
	out := make([]llm.Message, 0, len(history)+rep.Inserted)
	d, r, ti := 0, 0, 0 // cursors into p.drops, p.reorder, p.turns

	for i := range history {
		e := history[i]

		// Drops of this entry, as a sub-slice of the ascending list.
		d0 := d
		for d < len(p.drops) && p.drops[d].entry == i {
			d++
		}
		drops := p.drops[d0:d]

		reorder := r < len(p.reorder) && p.reorder[r] == i
		if reorder {
			r++
		}

		// The turn whose slot is this entry, if any.
		var fill []llm.Part
		for ti < len(p.turns) && p.turns[ti].index < i-1 {
			ti++
		}
		if ti < len(p.turns) && p.turns[ti].index == i-1 && e.Role != llm.RoleModel {
			fill = p.fill(p.turns[ti])
		}

		if len(drops) > 0 || reorder || len(fill) > 0 {
			e.Parts = rebuild(e, drops, fill)
		}
		if len(e.Parts) == 0 {
			rep.Dropped++
		} else {
			out = append(out, e)
		}

		// A model entry whose next entry cannot hold its answers gets a new
		// user entry right after it.
		if e.Role == llm.RoleModel {
			for ti < len(p.turns) && p.turns[ti].index < i {
				ti++
			}
			if ti < len(p.turns) && p.turns[ti].index == i && !slotIsNext(history, i) {
				if f := p.fill(p.turns[ti]); len(f) > 0 {
					out = append(out, llm.Message{Role: llm.RoleUser, Parts: f})
				}
			}
		}
	}
	return out, rep
}

// rebuild returns the parts of e without drops and with fill placed. For a
// user entry the order is: kept responses, fill, everything else (backends
// of the Anthropic kind need tool results before text). A model entry only
// loses its misplaced responses; its own parts keep their order.
func rebuild(e llm.Message, drops []partRef, fill []llm.Part) []llm.Part {
	parts := make([]llm.Part, 0, len(e.Parts)-len(drops)+len(fill))
	// keep appends the parts that pass want and are not dropped; drops is
	// ascending, so one cursor per pass suffices.
	keep := func(want func(*llm.Part) bool) {
		d := 0
		for k := range e.Parts {
			for d < len(drops) && drops[d].part < k {
				d++
			}
			if d < len(drops) && drops[d].part == k {
				continue
			}
			if want(&e.Parts[k]) {
				parts = append(parts, e.Parts[k])
			}
		}
	}
	if e.Role == llm.RoleModel {
		keep(func(*llm.Part) bool { return true })
		return parts
	}
	keep(func(p *llm.Part) bool { return p.Response != nil })
	parts = append(parts, fill...)
	keep(func(p *llm.Part) bool { return p.Response == nil })
	return parts
}
