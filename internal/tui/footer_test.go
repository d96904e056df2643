package tui

import (
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/turn"
)

// The footer's context figure is what ContextUsed says, against a known
// window without "~"; each request's usage is priced at the model's
// prices, in the footer and /stats.
func TestFooterContextAndCost(t *testing.T) {
	h := newHarness(t, nil, nil)
	used := 0
	h.m.cfg.Session = struct {
		bare
		ContextMeter
	}{bare{}, meter{used: func() (int, int) { return used, 200_000 }, info: func() (modelinfo.Info, bool) {
		return modelinfo.Info{ContextWindow: 200_000, Prices: modelinfo.Prices{Input: 3, CachedInput: 0.3, Output: 15}}, true
	}}}
	h.m.busy, h.m.id = true, 1
	used = 4200
	h.update(eventMsg{id: 1, ev: turn.Finished{Usage: &llm.Usage{InputTokens: 4000, OutputTokens: 1000}}})
	v := h.view()
	for _, want := range []string{"ctx 4.2k/200k (2%)", "$0.03"} {
		if !strings.Contains(v, want) {
			t.Errorf("footer lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "~") {
		t.Errorf("a known window is shown as assumed:\n%s", v)
	}
	if s := h.m.statsText(); !strings.Contains(s, "$0.03") {
		t.Errorf("/stats lacks the cost:\n%s", s)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{999: "999", 4200: "4.2k", 128_000: "128k", 1_000_000: "1M", 1_048_576: "1M", 1_500_000: "1.5M"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
