package repair

import "github.com/plyhq/ply/internal/llm"

// InterruptedOutput is the text of the error response synthesised for a
// call that was never answered. It tells the model plainly that the call
// may or may not have run and that no result exists, so it does not assume
// success.
const InterruptedOutput = "Tool call was interrupted or never answered; no result is available."

// DuplicateOutput is the text of the response sent for a call whose id was
// already answered earlier in the conversation (a provider replayed the id).
const DuplicateOutput = "Duplicate tool call id: a call with this id was already answered earlier in the conversation, so it was not run again. Issue a new call if you still need it."

// InterruptedResponse returns the synthetic error response for c.
func InterruptedResponse(c llm.FunctionCall) llm.Part {
	return llm.Part{Response: &llm.FunctionResponse{ID: c.ID, Name: c.Name, Output: InterruptedOutput, IsError: true}}
}

// DuplicateResponse returns the response to send, instead of executing c,
// when c's id already has a response in history. It must be sent: without
// it the call dangles.
func DuplicateResponse(c llm.FunctionCall) llm.Part {
	return llm.Part{Response: &llm.FunctionResponse{ID: c.ID, Name: c.Name, Output: DuplicateOutput, IsError: true}}
}

// DuplicateCalls returns the ids among calls that already have a response
// somewhere in history (some backends replay a call id; such a call must
// not run again). It returns nil when there are none. Calls without an id
// are never duplicates: the turn layer gives every call an id, so an empty
// one carries no identity to compare.
//
// The same question decides, when a completed tool result arrives, whether a
// synthetic response was planted for it in the meantime: then the real
// result is dropped to keep the pairing.
//
// It costs one pass over history's parts.
func DuplicateCalls(history []llm.Message, calls []llm.FunctionCall) map[string]bool {
	want := make(map[string]bool, len(calls))
	for i := range calls {
		if calls[i].ID != "" {
			want[calls[i].ID] = false
		}
	}
	if len(want) == 0 {
		return nil
	}
	var dup map[string]bool
	for i := range history {
		for k := range history[i].Parts {
			r := history[i].Parts[k].Response
			if r == nil {
				continue
			}
			if _, ok := want[r.ID]; ok {
				if dup == nil {
					dup = make(map[string]bool)
				}
				dup[r.ID] = true
			}
		}
	}
	return dup
}

// RepeatedInBatch returns the first call id seen a second time in one
// batch of calls. That is treated as a loop: the whole batch is dropped,
// since answering one of the copies would leave the pairing ambiguous.
// Calls without an id are ignored.
func RepeatedInBatch(calls []llm.FunctionCall) (id string, ok bool) {
	// Batches are small; past a few calls a set keeps it linear.
	if len(calls) <= 8 {
		for j := range calls {
			for i := range j {
				if calls[j].ID != "" && calls[i].ID == calls[j].ID {
					return calls[j].ID, true
				}
			}
		}
		return "", false
	}
	seen := make(map[string]struct{}, len(calls))
	for i := range calls {
		if calls[i].ID == "" {
			continue
		}
		if _, dup := seen[calls[i].ID]; dup {
			return calls[i].ID, true
		}
		seen[calls[i].ID] = struct{}{}
	}
	return "", false
}

// LostOutput is the text of the response synthesised, on resume, for a
// call of a session whose process ended (killed, crashed) before the call
// finished: unlike a cancelled call, nothing is known of its fate.
const LostOutput = "Tool call was interrupted: ply stopped (it was killed or crashed) before the call finished, so no result was recorded. The call may or may not have taken effect: check before repeating it."

// LostResponse returns the synthetic error response for a call lost when
// the process ended.
func LostResponse(c llm.FunctionCall) llm.Part {
	return llm.Part{Response: &llm.FunctionResponse{ID: c.ID, Name: c.Name, Output: LostOutput, IsError: true}}
}

// RepeatedOutput is the text of the response sent for the extra copies of
// a call id repeated within one reply: only the first copy runs.
const RepeatedOutput = "Duplicate call id, not run: this reply already holds a call with this id, and only the first one was run. Give every call its own id; issue a new call if you still need this one."

// RepeatedResponse returns the response for an extra copy of a call id
// repeated within one reply.
func RepeatedResponse(c llm.FunctionCall) llm.Part {
	return llm.Part{Response: &llm.FunctionResponse{ID: c.ID, Name: c.Name, Output: RepeatedOutput, IsError: true}}
}
