package repair

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func call(id string) llm.Part {
	return llm.Part{Call: &llm.FunctionCall{ID: id, Name: "tool_" + id, Args: `{}`}}
}

func resp(id string) llm.Part {
	return llm.Part{Response: &llm.FunctionResponse{ID: id, Name: "tool_" + id, Output: "result " + id}}
}

func text(s string) llm.Part { return llm.Part{Text: s} }

func user(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleUser, Parts: parts} }

func model(parts ...llm.Part) llm.Message {
	return llm.Message{Role: llm.RoleModel, Parts: parts, FinishReason: llm.FinishToolCalls}
}

// synth is the part Repair plants for an unanswered call made by call(id).
func synth(id string) llm.Part {
	return InterruptedResponse(llm.FunctionCall{ID: id, Name: "tool_" + id})
}

// describe renders a history compactly for failure messages:
// "M[c:a t] U[r:a t]".
func describe(h []llm.Message) string {
	s := ""
	for i, e := range h {
		if i > 0 {
			s += " "
		}
		if e.Role == llm.RoleModel {
			s += "M["
		} else {
			s += "U["
		}
		for k, p := range e.Parts {
			if k > 0 {
				s += " "
			}
			switch {
			case p.Call != nil:
				s += "c:" + p.Call.ID
			case p.Response != nil && p.Response.Output == InterruptedOutput:
				s += "s:" + p.Response.ID
			case p.Response != nil:
				s += "r:" + p.Response.ID
			default:
				s += "t"
			}
		}
		s += "]"
	}
	return s
}

// deepCopy copies history down to the call and response values, so that a
// test can tell whether Repair wrote into its input.
func deepCopy(h []llm.Message) []llm.Message {
	if h == nil {
		return nil
	}
	out := make([]llm.Message, len(h))
	for i, e := range h {
		out[i] = e
		if e.Parts == nil {
			continue
		}
		out[i].Parts = make([]llm.Part, len(e.Parts))
		for k, p := range e.Parts {
			if p.Call != nil {
				c := *p.Call
				p.Call = &c
			}
			if p.Response != nil {
				r := *p.Response
				p.Response = &r
			}
			out[i].Parts[k] = p
		}
	}
	return out
}

// checkRepaired verifies every property a repaired history must have, and
// that repairing it again changes nothing.
func checkRepaired(t testing.TB, in, out []llm.Message, rep Report, opts Options) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\nin:  %s\nout: %s\nreport: %v", fmt.Sprintf(format, args...), describe(in), describe(out), rep)
	}

	lastModel := -1
	for i, e := range out {
		if len(e.Parts) == 0 {
			fail("entry %d is empty", i)
		}
		if e.Role == llm.RoleModel {
			lastModel = i
		}
	}

	// Every response in out is one of in's, or planted by this repair.
	old := map[*llm.FunctionResponse]bool{}
	for _, e := range in {
		for _, p := range e.Parts {
			if p.Response != nil {
				old[p.Response] = true
			}
		}
	}
	synthesized := 0
	for i, e := range out {
		if e.Role == llm.RoleModel {
			for _, p := range e.Parts {
				if p.Response != nil {
					fail("model entry %d holds a response", i)
				}
			}
			ids := map[string]bool{}
			for _, c := range e.Calls() {
				ids[c.ID] = true
			}
			if len(ids) == 0 {
				continue
			}
			got := map[string]int{}
			if i+1 < len(out) && out[i+1].Role == llm.RoleUser {
				for _, p := range out[i+1].Parts {
					if p.Response != nil {
						got[p.Response.ID]++
					}
				}
			}
			for id := range ids {
				switch n := got[id]; {
				case n == 1:
				case n == 0 && opts.SkipTrailing && i == lastModel:
				default:
					fail("call %q of entry %d has %d responses after it", id, i, n)
				}
			}
			continue
		}
		// A user entry: responses answer the model entry right before it,
		// once each, before any other part.
		var owed map[string]bool
		if i > 0 && out[i-1].Role == llm.RoleModel {
			owed = map[string]bool{}
			for _, c := range out[i-1].Calls() {
				owed[c.ID] = true
			}
		}
		seen := map[string]bool{}
		other := false
		for _, p := range e.Parts {
			if p.Response == nil {
				other = true
				continue
			}
			if other {
				fail("entry %d has a response after another part", i)
			}
			if !owed[p.Response.ID] {
				fail("response %q in entry %d answers no call of the entry before", p.Response.ID, i)
			}
			if seen[p.Response.ID] {
				fail("response %q twice in entry %d", p.Response.ID, i)
			}
			seen[p.Response.ID] = true
			if !old[p.Response] {
				if p.Response.Output != InterruptedOutput || !p.Response.IsError {
					fail("response %q in entry %d is neither kept nor synthetic", p.Response.ID, i)
				}
				synthesized++
			}
		}
	}
	if synthesized != rep.Synthesized {
		fail("found %d synthetic responses, report says %d", synthesized, rep.Synthesized)
	}

	// What the model said and what the user typed survive, in order.
	if a, b := nonResponse(in, llm.RoleModel), nonResponse(out, llm.RoleModel); !reflect.DeepEqual(a, b) {
		fail("model parts changed")
	}
	if a, b := nonResponse(in, llm.RoleUser), nonResponse(out, llm.RoleUser); !reflect.DeepEqual(a, b) {
		fail("user parts changed")
	}

	again, rep2 := RepairWith(out, opts)
	if rep2.Changed() || !reflect.DeepEqual(again, out) {
		t.Fatalf("not idempotent: second repair %v\nout:   %s\nagain: %s", rep2, describe(out), describe(again))
	}
}

func nonResponse(h []llm.Message, role llm.Role) []llm.Part {
	var out []llm.Part
	for _, e := range h {
		if e.Role != role {
			continue
		}
		for _, p := range e.Parts {
			if p.Response == nil {
				out = append(out, p)
			}
		}
	}
	return out
}
