package llm

import (
	"testing"
)

func TestParseEffort(t *testing.T) {
	for in, want := range map[string]Effort{
		"": "", "low": EffortLow, " High ": EffortHigh, "MEDIUM": EffortMedium, "xhigh": EffortXHigh, "max": EffortMax,
	} {
		got, err := ParseEffort(in)
		if err != nil || got != want {
			t.Errorf("ParseEffort(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"minimal", "none", "hi", "7", "low high"} {
		if got, err := ParseEffort(bad); err == nil {
			t.Errorf("ParseEffort(%q) = %q, want an error", bad, got)
		}
	}
}

func TestThinkingBudget(t *testing.T) {
	cases := []struct {
		e         Effort
		max, want int
	}{
		{"", 32000, 0},
		{EffortLow, 32000, 2048},
		{EffortMedium, 32000, 8192},
		{EffortHigh, 64000, 16384},
		{EffortMax, 70000, 32768},
		// Below the reply's cap, leaving room for the answer.
		{EffortHigh, 8192, 4096},
		{EffortMax, 16000, 8000},
		// No room for the smallest budget a provider takes: none.
		{EffortLow, 1500, 0},
		// No cap given: the tier's budget.
		{EffortMedium, 0, 8192},
	}
	for _, c := range cases {
		if got := c.e.ThinkingBudget(c.max); got != c.want {
			t.Errorf("%q.ThinkingBudget(%d) = %d, want %d", c.e, c.max, got, c.want)
		}
		if got := c.e.ThinkingBudget(c.max); got != 0 && c.max > 0 && got >= c.max {
			t.Errorf("%q.ThinkingBudget(%d) = %d, not below the cap", c.e, c.max, got)
		}
	}
}

func FuzzParseEffort(f *testing.F) {
	for _, s := range []string{"", "low", "HIGH", " max ", "xhigh", "minimal", "\x00"} {
		f.Add(s, 4096)
	}
	f.Fuzz(func(t *testing.T, s string, maxTokens int) {
		e, err := ParseEffort(s)
		if err != nil {
			if e != "" {
				t.Fatalf("ParseEffort(%q) = %q with an error", s, e)
			}
			return
		}
		if again, err := ParseEffort(string(e)); err != nil || again != e {
			t.Fatalf("ParseEffort(%q) = %q, which parses as %q, %v", s, e, again, err)
		}
		b := e.ThinkingBudget(maxTokens)
		if b < 0 || (b > 0 && b < MinThinkingBudget) || (b > 0 && maxTokens > 0 && b >= maxTokens) {
			t.Fatalf("%q.ThinkingBudget(%d) = %d", e, maxTokens, b)
		}
	})
}
