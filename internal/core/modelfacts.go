package core

import (
	"cmp"
	"slices"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/settings"
)

// modelFacts is what is known of model: the built-in table, overridden by
// the modelProviders entries that name it (the selected provider's
// first), and for the run's own model the window its flags or provider
// set. known is false when the window is not known.
func modelFacts(cfg *Config, model string) (modelinfo.Info, bool) {
	var over modelinfo.Info
	take := func(mp settings.ModelProvider) {
		if over.ContextWindow == 0 {
			over.ContextWindow = mp.ContextWindow
		}
		if p := modelinfo.Prices(mp.Pricing); over.Prices.Zero() {
			over.Prices = p
		}
	}
	selected := cfg.ProviderName
	if mp, ok := cfg.Settings.ModelProviders[selected]; ok && (mp.Model == model || mp.Model == "" && model == cfg.Model) {
		take(mp)
	}
	names := make([]string, 0, len(cfg.Settings.ModelProviders))
	for n := range cfg.Settings.ModelProviders {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if mp := cfg.Settings.ModelProviders[n]; n != selected && mp.Model == model {
			take(mp)
		}
	}
	if model == cfg.Model && cfg.ContextWindow > 0 {
		over.ContextWindow = cfg.ContextWindow
	}
	return modelinfo.Resolve(model, over)
}

// contextWindow is the window the chat compresses against: model's own,
// or one most current models have.
func contextWindow(cfg *Config, model string) int {
	info, _ := modelFacts(cfg, model)
	return cmp.Or(info.ContextWindow, defaultContextWindow)
}

// ContextUsed is the size of the next request: the prompt tokens the
// provider reported for the last one plus an estimate of what was added
// since; before any report, or after the history shrank, the calibrated
// estimate of the whole request.
func ContextUsed(e chat.Estimate) int {
	if e.LastPrompt > 0 && e.Added >= 0 {
		return e.LastPrompt + e.Added
	}
	return e.System + e.Tools + e.History
}
