package cli

import (
	"slices"

	"github.com/plyhq/ply/internal/headless"
)

// availableModels lists the model in use and those of the providers the
// settings define ("modelProviders"), for the SDK's get_available_models.
func availableModels(cfg *config, current string) []headless.Model {
	out := []headless.Model{{ID: current, Label: current, ContextWindow: cfg.contextWindow, Current: true}}
	names := make([]string, 0, len(cfg.settings.ModelProviders))
	for n := range cfg.settings.ModelProviders {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		mp := cfg.settings.ModelProviders[n]
		if mp.Model == "" || mp.Model == current {
			continue
		}
		out = append(out, headless.Model{ID: mp.Model, Label: n + ": " + mp.Model, Provider: n, ContextWindow: mp.ContextWindow})
	}
	return out
}
