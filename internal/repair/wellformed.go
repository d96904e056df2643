package repair

import "github.com/plyhq/ply/internal/llm"

// maxLocalCalls is the most calls of one model entry that wellFormed
// matches with their answers by scanning; an entry with more is left to
// the planner, whose set keeps it linear.
const maxLocalCalls = 16

// wellFormed reports whether history needs no repair under Options{}: no
// entry is empty, no model entry holds a response, and every model entry
// with calls is followed by a user entry that starts with exactly one
// response per distinct call id of that entry, and holds no other
// response, while no other entry holds a response at all. That is the
// shape Repair leaves, and what the chat sends round after round: checking
// it entry by entry costs no map of every call id, unlike planning a
// repair. It returns false for an entry of more than maxLocalCalls calls,
// whatever its shape; planRepair decides then.
func wellFormed(history []llm.Message) bool {
	slot := false // history[i] must answer the calls of history[i-1]
	for i := range history {
		e := &history[i]
		if len(e.Parts) == 0 {
			return false
		}
		if e.Role == llm.RoleModel {
			calls := 0
			for k := range e.Parts {
				if e.Parts[k].Response != nil {
					return false
				}
				if e.Parts[k].Call != nil {
					calls++
				}
			}
			if calls > maxLocalCalls {
				return false
			}
			if calls > 0 && (i+1 == len(history) || history[i+1].Role == llm.RoleModel ||
				!answers(e.Parts, history[i+1].Parts)) {
				return false
			}
			slot = calls > 0
			continue
		}
		if !slot {
			for k := range e.Parts {
				if e.Parts[k].Response != nil {
					return false
				}
			}
		}
		slot = false
	}
	return true
}

// answers reports whether slot starts with exactly one response per
// distinct call id of the calls among parts, and holds no other response.
func answers(parts, slot []llm.Part) bool {
	n := 0 // leading responses
	for n < len(slot) && slot[n].Response != nil {
		n++
	}
	for k := n; k < len(slot); k++ {
		if slot[k].Response != nil {
			return false
		}
	}
	distinct := 0
	for k := range parts {
		c := parts[k].Call
		if c == nil || repeated(parts[:k], c.ID) {
			continue
		}
		distinct++
		found := 0
		for j := range n {
			if slot[j].Response.ID == c.ID {
				found++
			}
		}
		if found != 1 {
			return false
		}
	}
	// Every distinct id has one response: any more are strangers.
	return n == distinct
}

// repeated reports whether a call of parts has the given id.
func repeated(parts []llm.Part, id string) bool {
	for k := range parts {
		if parts[k].Call != nil && parts[k].Call.ID == id {
			return true
		}
	}
	return false
}
