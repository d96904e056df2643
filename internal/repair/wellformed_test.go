package repair

import (
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// wellFormed, the shortcut Repair takes, says a history needs no repair
// exactly when planning a repair finds nothing to do, for every history
// whose model entries hold at most maxLocalCalls calls; and the output of
// a repair is well formed.
func FuzzWellFormed(f *testing.F) {
	f.Add([]byte{0, 0x12})
	f.Add([]byte{0, 0x02, 0x03})
	f.Add([]byte{0, 0x02, 0x0a, 0x03, 0x0b})
	f.Add([]byte{0, 0x02, 0x01, 0x0a, 0x00, 0x03})
	f.Add([]byte{0, 0x02, 0x00, 0x04, 0x03, 0x03})
	f.Add([]byte{0, 0x03, 0x02, 0x0b, 0x02, 0x00})
	f.Add([]byte{0, 0x07, 0x02, 0x0f, 0x00, 0x03})
	f.Add([]byte{0, 0x02, 0x02, 0x03, 0x04, 0x01, 0x04})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, _ := decodeHistory(data)
		for i := range h {
			if len(h[i].Calls()) > maxLocalCalls {
				t.Skip("an entry of many calls is left to the planner")
			}
		}
		if got, want := wellFormed(h), planRepair(h, Options{}).noop(); got != want {
			t.Fatalf("wellFormed = %v, planRepair finds nothing to do = %v, for %s", got, want, describe(h))
		}
		out, _ := RepairWith(h, Options{})
		if !wellFormed(out) {
			t.Fatalf("the repair of %s is not well formed: %s", describe(h), describe(out))
		}
	})
}

func TestWellFormedLeavesManyCallsToThePlanner(t *testing.T) {
	var calls, answers []llm.Part
	for i := range maxLocalCalls + 1 {
		id := string(rune('a' + i))
		calls, answers = append(calls, call(id)), append(answers, resp(id))
	}
	h := []llm.Message{user(text("go")), model(calls...), user(answers...)}
	if wellFormed(h) {
		t.Fatal("wellFormed took an entry of many calls")
	}
	if out, rep := Repair(h); rep.Changed() || len(out) != len(h) {
		t.Fatalf("a well-formed history of many calls was repaired: %v", rep)
	}
	h[2].Parts = h[2].Parts[1:]
	if _, rep := Repair(h); rep.Synthesized != 1 {
		t.Fatalf("a missing answer among many calls: %v, want one synthesised", rep)
	}
}
