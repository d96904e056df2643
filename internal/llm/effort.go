package llm

import (
	"fmt"
	"strings"
)

// Effort is how hard the model should reason before it answers: a tier
// each provider maps to its own setting (a reasoning effort, or a budget
// of thinking tokens). "" leaves the provider's default.
type Effort string

// The tiers, least to most.
const (
	EffortLow    Effort = "low"
	EffortMedium Effort = "medium"
	EffortHigh   Effort = "high"
	EffortXHigh  Effort = "xhigh"
	EffortMax    Effort = "max"
)

// ParseEffort reads a tier, ignoring case and surrounding space; "" is
// the provider's default.
func ParseEffort(s string) (Effort, error) {
	e := Effort(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := thinkingBudgets[e]; ok || e == "" {
		return e, nil
	}
	return "", fmt.Errorf("unknown effort %q: use low, medium, high, xhigh or max", s)
}

// MinThinkingBudget is the smallest thinking budget ThinkingBudget
// gives: below it providers refuse the request or think not at all.
const MinThinkingBudget = 1024

// thinkingBudgets are the thinking tokens of each tier.
var thinkingBudgets = map[Effort]int{
	EffortLow:    2048,
	EffortMedium: 8192,
	EffortHigh:   16384,
	EffortXHigh:  24576,
	EffortMax:    32768,
}

// ThinkingBudget is the tier's budget of thinking tokens for a reply
// capped at maxTokens (0 or less: no cap): at most half the cap, so that
// the answer has room, and 0 (no thinking asked for) when that is below
// MinThinkingBudget or e is the default.
func (e Effort) ThinkingBudget(maxTokens int) int {
	b := thinkingBudgets[e]
	if maxTokens > 0 {
		b = min(b, maxTokens/2)
	}
	if b < MinThinkingBudget {
		return 0
	}
	return b
}

// ReasoningEffort is the tier as OpenAI's reasoning effort names it:
// low, medium or high (the tiers above high ask for high).
func (e Effort) ReasoningEffort() string {
	switch e {
	case "":
		return ""
	case EffortXHigh, EffortMax:
		return string(EffortHigh)
	}
	return string(e)
}
