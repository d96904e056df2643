package cli

import (
	"cmp"
	"slices"

	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/settings"
)

// servedModels are the models of the providers the settings define
// ("modelProviders") that the session's provider serves, by the
// providers' names (core.Config.Models). UNFINISHED: switching to another
// provider's model (its wire format, endpoint and key) within a session
// is not done, so those models are not listed.
func servedModels(cfg *config) []info.Model {
	names := make([]string, 0, len(cfg.settings.ModelProviders))
	for n := range cfg.settings.ModelProviders {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []info.Model
	for _, n := range names {
		mp := cfg.settings.ModelProviders[n]
		if mp.Model == "" || !sameEndpoint(cfg, mp) {
			continue
		}
		out = append(out, info.Model{ID: mp.Model, Label: n + ": " + mp.Model, Provider: n, ContextWindow: mp.ContextWindow})
	}
	return out
}

// sameEndpoint reports whether mp is served by the session's provider:
// the same wire format, base URL and key.
func sameEndpoint(cfg *config, mp settings.ModelProvider) bool {
	auth := cmp.Or(mp.AuthType, cfg.settings.AuthType, "openai")
	return auth == cfg.wire.name &&
		(mp.BaseURL == "" || mp.BaseURL == cfg.baseURL) &&
		(mp.APIKeyEnv == "" || mp.APIKeyEnv == cfg.keyEnv)
}

// otherModels are the models the settings give only to providers the
// session's provider is not (core.Config.OtherModels), each with one of
// those providers' names.
func otherModels(cfg *config) map[string]string {
	served, other := map[string]bool{}, map[string]string{}
	for name, mp := range cfg.settings.ModelProviders {
		switch {
		case mp.Model == "":
		case sameEndpoint(cfg, mp):
			served[mp.Model] = true
		case other[mp.Model] == "" || name < other[mp.Model]:
			other[mp.Model] = name
		}
	}
	for m := range served {
		delete(other, m)
	}
	return other
}
