package sdk

import (
	"encoding/json"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

func TestCanUseToolDecision(t *testing.T) {
	for _, c := range []struct {
		answer, updated string
		outcome         scheduler.Outcome
		interrupt, bad  bool
	}{
		{answer: `{"behavior":"allow"}`, outcome: scheduler.OutcomeAllowOnce},
		{answer: `{"behavior":"allow","updatedInput":null}`, outcome: scheduler.OutcomeAllowOnce},
		{answer: `{"behavior":"allow","updatedInput":{"command":"echo SANITIZED"}}`, outcome: scheduler.OutcomeAllowOnce, updated: `{"command":"echo SANITIZED"}`},
		{answer: `{"behavior":"deny","message":"no","interrupt":true}`, outcome: scheduler.OutcomeDeny, interrupt: true},
		{answer: `{"behavior":"deny","updatedInput":{"command":"x"}}`, outcome: scheduler.OutcomeDeny},
		{answer: `{"behavior":"maybe"}`, bad: true},
		{answer: `[]`, bad: true},
	} {
		d, interrupt, err := canUseToolDecision(json.RawMessage(c.answer))
		if (err != nil) != c.bad {
			t.Errorf("%s: error %v", c.answer, err)
			continue
		}
		if c.bad {
			continue
		}
		if d.Outcome != c.outcome || d.UpdatedInput != c.updated || interrupt != c.interrupt {
			t.Errorf("%s: %+v, interrupt %v", c.answer, d, interrupt)
		}
		if c.updated != "" && d.RewrittenBy == "" {
			t.Errorf("%s: the rewrite does not say whose it is", c.answer)
		}
	}
}

// Whatever the SDK answers, arguments are rewritten only on an allow, and
// only with JSON the answer held.
func FuzzCanUseToolDecision(f *testing.F) {
	for _, s := range []string{
		`{"behavior":"allow","updatedInput":{"command":"echo SANITIZED"}}`,
		`{"behavior":"allow","updatedInput":"text"}`,
		`{"behavior":"allow","updatedInput": null }`,
		`{"behavior":"deny","message":"m","interrupt":true,"updatedInput":{}}`,
		`{"behavior":1}`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		d, interrupt, err := canUseToolDecision(answer)
		if err != nil {
			if d.Outcome != scheduler.OutcomeDeny || d.UpdatedInput != "" || interrupt {
				t.Fatalf("%q: an error with a decision %+v", answer, d)
			}
			return
		}
		if d.UpdatedInput != "" && (d.Outcome != scheduler.OutcomeAllowOnce || !json.Valid([]byte(d.UpdatedInput)) || d.UpdatedInput == "null") {
			t.Fatalf("%q: rewrite %q with outcome %v", answer, d.UpdatedInput, d.Outcome)
		}
		if interrupt && d.Outcome != scheduler.OutcomeDeny {
			t.Fatalf("%q: interrupt on outcome %v", answer, d.Outcome)
		}
	})
}
