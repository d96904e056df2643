// Package resume classifies the tail of a saved history so that --continue
// knows whether, and how, the last interaction was cut short.
//
// It owns that judgement only, as a pure function of the history. It must
// not change history, send anything or decide policy: the client strips and
// resends as the Interruption says, and package repair keeps calls and
// responses paired.
package resume

import (
	"strings"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/repair"
)

// Kind is the class of a history's tail.
type Kind int

const (
	// None: nothing to resume. A clean text end, a tail of system
	// reminders only, an empty history, or a reply that stopped for a
	// reason other than being cut (MAX_TOKENS, CONTENT_FILTER).
	None Kind = iota
	// InterruptedPrompt: trailing user content that the model never
	// answered. Resume by resending Resend() with Retry semantics, after
	// truncating history to Start, so no user message is duplicated.
	InterruptedPrompt
	// InterruptedTurn: the last model entry asked for tools and no reply
	// to their results exists. Some calls may be unanswered (Dangling);
	// results already in the tail are in Parts. Resume by truncating
	// history to Start and sending Resend() as a ToolResult.
	InterruptedTurn
	// InterruptedReply: the last model entry made no calls and has no
	// finish reason: its stream was cut mid-reply. Qwen Code cannot tell
	// this from a clean end; ply persists the finish reason, so it can.
	// There is nothing to resend: offer the user to continue.
	InterruptedReply
)

func (k Kind) String() string {
	switch k {
	case InterruptedPrompt:
		return "interrupted_prompt"
	case InterruptedTurn:
		return "interrupted_turn"
	case InterruptedReply:
		return "interrupted_reply"
	}
	return "none"
}

// Interruption says how a history ends.
type Interruption struct {
	Kind Kind

	// Start is the index of the first of the trailing user entries (those
	// after the last model entry), len(history) when there are none.
	Start int
	// Parts are the parts of history[Start:], in order.
	Parts []llm.Part

	// Model is the index of the last model entry, -1 when there is none.
	Model int
	// Dangling are the calls of history[Model] that no trailing entry
	// answers, one per id, in call order. Set whatever the Kind: with an
	// InterruptedPrompt they still need answers, which Resend includes.
	Dangling []llm.FunctionCall
	// Cut reports that history[Model] has no finish reason: its stream
	// was cut. With InterruptedTurn it means the model may have meant to
	// ask for more calls than it did.
	Cut bool
}

// Resend returns the content of the user message that resumes the
// interaction: the tail's parts with a synthetic error response for each
// dangling call, responses first. It is nil for None and InterruptedReply.
func (in Interruption) Resend() []llm.Part {
	if in.Kind != InterruptedPrompt && in.Kind != InterruptedTurn {
		return nil
	}
	out := make([]llm.Part, 0, len(in.Parts)+len(in.Dangling))
	for _, p := range in.Parts {
		if p.Response != nil {
			out = append(out, p)
		}
	}
	for _, c := range in.Dangling {
		out = append(out, repair.InterruptedResponse(c))
	}
	for _, p := range in.Parts {
		if p.Response == nil {
			out = append(out, p)
		}
	}
	return out
}

// reminderTag opens the system reminders the client injects into user
// entries (date, IDE context). They are not something the user asked.
const reminderTag = "<system-reminder>"

// structural reports whether p is framework plumbing rather than content a
// user wrote: a tool result, a system reminder, a thought, or empty text.
// Media is content: the user attached it.
func structural(p *llm.Part) bool {
	switch {
	case p.Response != nil, p.Thought:
		return true
	case p.Call != nil, p.Media != nil:
		return false
	}
	t := strings.TrimSpace(p.Text)
	return t == "" || strings.HasPrefix(t, reminderTag)
}

// Classify returns how history ends. It reads only the tail: the last
// model entry and the user entries after it; orphans deeper in history are
// package repair's business. On session load, run
// repair.RepairWith(history, repair.Options{SkipTrailing: true}) first, so
// that the tail's dangling calls are still visible here.
func Classify(history []llm.Message) Interruption {
	in := Interruption{Start: len(history), Model: -1}
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == llm.RoleModel {
			in.Model = i
			break
		}
		in.Start = i
	}
	prompt := false
	answered := map[string]bool{}
	for i := in.Start; i < len(history); i++ {
		for k := range history[i].Parts {
			p := &history[i].Parts[k]
			in.Parts = append(in.Parts, *p)
			if p.Response != nil {
				answered[p.Response.ID] = true
			}
			if !structural(p) {
				prompt = true
			}
		}
	}

	calls := false
	if in.Model >= 0 {
		m := &history[in.Model]
		in.Cut = m.FinishReason == llm.FinishUnspecified
		seen := map[string]bool{}
		for _, c := range m.Calls() {
			calls = true
			if !answered[c.ID] && !seen[c.ID] {
				in.Dangling = append(in.Dangling, *c)
			}
			seen[c.ID] = true
		}
	}

	switch {
	case prompt:
		in.Kind = InterruptedPrompt
	case calls:
		// Every call expects a reply to its results; none came after them.
		in.Kind = InterruptedTurn
	case in.Model >= 0 && in.Cut:
		in.Kind = InterruptedReply
	}
	return in
}
