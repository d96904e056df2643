package repair

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

// decodeHistory turns fuzz bytes into a history. The first byte picks the
// options; every further byte is one operation: the low 3 bits say what,
// the rest picks one of six call ids. Ids are few on purpose, so that
// replayed ids, duplicates and misplaced answers are common.
func decodeHistory(data []byte) ([]llm.Message, Options) {
	var opts Options
	if len(data) > 0 {
		opts.SkipTrailing = data[0]&1 == 1
		data = data[1:]
	}
	var h []llm.Message
	cur := func(role llm.Role) *llm.Message {
		if len(h) == 0 || (role != "" && h[len(h)-1].Role != role) {
			h = append(h, llm.Message{Role: role})
			if role == "" {
				h[len(h)-1].Role = llm.RoleUser
			}
		}
		return &h[len(h)-1]
	}
	for i, b := range data {
		id := string(rune('a' + int(b>>3)%6))
		switch b & 7 {
		case 0:
			h = append(h, llm.Message{Role: llm.RoleUser})
		case 1:
			h = append(h, llm.Message{Role: llm.RoleModel, FinishReason: llm.FinishStop})
		case 2, 6: // calls are only ever made by the model
			m := cur(llm.RoleModel)
			m.Parts = append(m.Parts, call(id))
		case 3, 5: // responses anywhere, most often in the current entry
			m := cur("")
			p := resp(id)
			p.Response.Output = fmt.Sprintf("result %s #%d", id, i)
			m.Parts = append(m.Parts, p)
		case 4:
			m := cur("")
			m.Parts = append(m.Parts, text(fmt.Sprintf("text %d", i)))
		case 7:
			h = append(h, llm.Message{Role: []llm.Role{llm.RoleUser, llm.RoleModel}[b>>3&1]})
		}
	}
	return h, opts
}

func FuzzRepair(f *testing.F) {
	// Seeds: each table case shape, encoded.
	f.Add([]byte{0, 0x12})                         // dangling call
	f.Add([]byte{1, 0x12})                         // dangling call, SkipTrailing
	f.Add([]byte{0, 0x02, 0x01, 0x0a, 0x00, 0x03}) // wedge
	f.Add([]byte{0, 0x02, 0x00, 0x04, 0x03, 0x03}) // text first, duplicate
	f.Add([]byte{0, 0x03, 0x02, 0x0b, 0x02, 0x00}) // orphan, replayed id
	f.Add([]byte{0, 0x07, 0x02, 0x0f, 0x00, 0x03})
	f.Fuzz(func(t *testing.T, data []byte) {
		in, opts := decodeHistory(data)
		before := deepCopy(in)
		out, rep := RepairWith(in, opts)
		if !reflect.DeepEqual(in, before) {
			t.Fatalf("Repair modified its input")
		}
		checkRepaired(t, in, out, rep, opts)
	})
}

// benchHistory builds n entries of model/user pairs with a defect every few
// pairs: a missing answer, an answer one entry late, a duplicate, text
// before results.
func benchHistory(n int, broken bool) []llm.Message {
	h := make([]llm.Message, 0, n)
	for i := 0; len(h) < n; i++ {
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		h = append(h, model(text("thinking"), call(a), call(b)))
		switch {
		case !broken:
			h = append(h, user(resp(a), resp(b)))
		case i%4 == 0:
			h = append(h, user(resp(a))) // b is missing
		case i%4 == 1:
			h = append(h, user(text("note"), resp(a), resp(b), resp(b)))
		case i%4 == 2:
			h = append(h, user(text("wait")), user(resp(a), resp(b))) // late
		default:
			h = append(h, user(resp(a), resp(b)))
		}
	}
	return h[:n]
}

func BenchmarkRepair(b *testing.B) {
	for _, bc := range []struct {
		name   string
		broken bool
	}{{"wellformed", false}, {"broken", true}} {
		b.Run(bc.name, func(b *testing.B) {
			h := benchHistory(10000, bc.broken)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				Repair(h)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(h)), "ns/entry")
		})
	}
}

// TestRepairLinear guards against a quadratic regression: the work per
// entry must not grow with the length of the history. It counts the CPU
// time of its own locked thread, not the wall clock, so that other
// processes on a busy machine do not count against it.
func TestRepairLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Best of a few runs: noise only ever adds time.
	perEntry := func(n, reps int) float64 {
		h := benchHistory(n, true)
		best := time.Duration(0)
		for range 5 {
			start := threadCPU(t)
			for range reps {
				Repair(h)
			}
			if d := threadCPU(t) - start; best == 0 || d < best {
				best = d
			}
		}
		return float64(best) / float64(n*reps)
	}
	small, large := perEntry(1000, 40), perEntry(40000, 1)
	ratio := large / small
	t.Logf("per-entry %.0fns small, %.0fns large (%.2fx)", small, large, ratio)
	// Quadratic work would make the large history's entries 40 times
	// dearer; cache misses and a loaded machine (seen: 7.7x with the other
	// core busy) stay well below 15.
	if ratio > 15 {
		t.Errorf("per-entry cost grew %.1fx from 1,000 to 40,000 entries: not linear", ratio)
	}
}
