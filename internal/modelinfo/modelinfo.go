// Package modelinfo holds what ply knows about common models without
// asking their provider: the context window and list prices per million
// tokens. Settings override it (a modelProviders entry's contextWindow and
// pricing); a model it does not know gets neither, and callers assume a
// window and show no cost.
package modelinfo

import (
	"strings"
)

// Prices are US dollars per million tokens. CachedInput is the price of
// input read from the provider's prompt cache; 0 means it is not known
// and such input is priced as Input.
type Prices struct {
	Input, CachedInput, Output float64
}

// Zero reports whether no price is set.
func (p Prices) Zero() bool { return p.Input == 0 && p.CachedInput == 0 && p.Output == 0 }

// Cost prices one request's usage: input tokens (cached ones among them)
// and output tokens (reasoning ones among them, as providers bill them).
func (p Prices) Cost(input, cached, output int) float64 {
	cached = min(max(cached, 0), max(input, 0))
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	return (float64(input-cached)*p.Input + float64(cached)*cachedPrice + float64(output)*p.Output) / 1e6
}

// Info is what is known of one model; a zero field is not known.
type Info struct {
	ContextWindow int
	Prices        Prices
}

// entry is one row of the built-in table: a model name, matched as a
// prefix of the normalised name asked about, longest match first.
type entry struct {
	name string
	Info
}

// builtin is a snapshot of common models' windows and list prices
// (standard tier, the shortest-context price where a provider tiers by
// prompt length). Prices change: settings override them.
var builtin = []entry{
	{"gpt-4o-mini", Info{128_000, Prices{0.15, 0.075, 0.60}}},
	{"gpt-4o", Info{128_000, Prices{2.50, 1.25, 10}}},
	{"gpt-4.1-nano", Info{1_047_576, Prices{0.10, 0.025, 0.40}}},
	{"gpt-4.1-mini", Info{1_047_576, Prices{0.40, 0.10, 1.60}}},
	{"gpt-4.1", Info{1_047_576, Prices{2, 0.50, 8}}},
	{"gpt-5-nano", Info{400_000, Prices{0.05, 0.005, 0.40}}},
	{"gpt-5-mini", Info{400_000, Prices{0.25, 0.025, 2}}},
	{"gpt-5", Info{400_000, Prices{1.25, 0.125, 10}}},
	{"o4-mini", Info{200_000, Prices{1.10, 0.275, 4.40}}},
	{"o3-mini", Info{200_000, Prices{1.10, 0.55, 4.40}}},
	{"o3", Info{200_000, Prices{2, 0.50, 8}}},
	{"claude-opus-4-5", Info{200_000, Prices{5, 0.50, 25}}},
	{"claude-opus-4", Info{200_000, Prices{15, 1.50, 75}}},
	{"claude-sonnet-4", Info{200_000, Prices{3, 0.30, 15}}},
	{"claude-haiku-4", Info{200_000, Prices{1, 0.10, 5}}},
	{"claude-3-7-sonnet", Info{200_000, Prices{3, 0.30, 15}}},
	{"claude-3-5-sonnet", Info{200_000, Prices{3, 0.30, 15}}},
	{"claude-3-5-haiku", Info{200_000, Prices{0.80, 0.08, 4}}},
	{"gemini-2.5-pro", Info{1_048_576, Prices{1.25, 0.31, 10}}},
	{"gemini-2.5-flash-lite", Info{1_048_576, Prices{0.10, 0.025, 0.40}}},
	{"gemini-2.5-flash", Info{1_048_576, Prices{0.30, 0.075, 2.50}}},
	{"gemini-2.0-flash", Info{1_048_576, Prices{0.10, 0.025, 0.40}}},
	{"qwen3-coder-plus", Info{1_000_000, Prices{1, 0, 5}}},
	{"qwen3-coder-flash", Info{1_000_000, Prices{0.30, 0, 1.50}}},
	{"qwen3-coder", Info{262_144, Prices{}}},
	{"qwen2.5-coder", Info{32_768, Prices{}}},
	{"deepseek-chat", Info{128_000, Prices{}}},
	{"deepseek-reasoner", Info{128_000, Prices{}}},
}

// Normalize reduces a model name as providers and routers spell it to
// the table's form: lower case, without a router's "vendor/" prefix, a
// ":tag" or an "@version".
func Normalize(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	if i := strings.IndexAny(n, ":@"); i >= 0 {
		n = n[:i]
	}
	// Anthropic's dotted aliases ("claude-sonnet-4.5") as their ids.
	if n = strings.TrimSpace(n); strings.HasPrefix(n, "claude-") {
		n = strings.ReplaceAll(n, ".", "-")
	}
	return n
}

// Builtin returns the built-in facts of model, matched by the longest
// table name that prefixes its normalised form at a word boundary.
func Builtin(model string) (Info, bool) {
	n := Normalize(model)
	best := -1
	for i, e := range builtin {
		if !strings.HasPrefix(n, e.name) {
			continue
		}
		if rest := n[len(e.name):]; rest != "" && rest[0] != '-' {
			continue // "gpt-4o" must not match "gpt-4olive"
		}
		if best < 0 || len(e.name) > len(builtin[best].name) {
			best = i
		}
	}
	if best < 0 {
		return Info{}, false
	}
	return builtin[best].Info, true
}

// Resolve merges what settings say of a model over the built-in table:
// a non-zero window or set of prices in override wins. known reports
// whether the window comes from either rather than being unknown.
func Resolve(model string, override Info) (info Info, known bool) {
	info, _ = Builtin(model)
	if override.ContextWindow > 0 {
		info.ContextWindow = override.ContextWindow
	}
	if !override.Prices.Zero() {
		info.Prices = override.Prices
	}
	return info, info.ContextWindow > 0
}
