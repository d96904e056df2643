package core

import (
	"testing"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/settings"
)

func TestModelFacts(t *testing.T) {
	cfg := &Config{Model: "house-model", ProviderName: "mine", Settings: settings.Settings{
		Provider: "mine",
		ModelProviders: map[string]settings.ModelProvider{
			"mine":  {Model: "house-model", ContextWindow: 64_000, Pricing: settings.Pricing{Input: 1, Output: 2}},
			"other": {Model: "gpt-4o", Pricing: settings.Pricing{Input: 9, Output: 9}},
		},
	}}
	info, known := modelFacts(cfg, "house-model")
	if !known || info.ContextWindow != 64_000 || info.Prices.Output != 2 {
		t.Errorf("house-model: %+v %v; want the provider entry's window and prices", info, known)
	}
	// Another entry's prices override the table; its window stays the table's.
	info, known = modelFacts(cfg, "gpt-4o")
	if !known || info.ContextWindow != 128_000 || info.Prices.Input != 9 {
		t.Errorf("gpt-4o: %+v %v", info, known)
	}
	if _, known := modelFacts(cfg, "unheard-of"); known || contextWindow(cfg, "unheard-of") != defaultContextWindow {
		t.Error("an unknown model's window should be the assumed default")
	}
	// --provider's or settings' contextWindow for the run's own model wins.
	cfg.ContextWindow = 32_000
	if info, _ := modelFacts(cfg, "house-model"); info.ContextWindow != 32_000 {
		t.Errorf("configured window ignored: %d", info.ContextWindow)
	}
}

func TestContextUsed(t *testing.T) {
	if got := ContextUsed(chat.Estimate{System: 100, Tools: 200, History: 300}); got != 600 {
		t.Errorf("before any report: %d, want the estimate 600", got)
	}
	if got := ContextUsed(chat.Estimate{System: 100, Tools: 200, History: 300, LastPrompt: 4100, Added: 50}); got != 4150 {
		t.Errorf("after a report: %d, want 4150", got)
	}
	if got := ContextUsed(chat.Estimate{History: 300, LastPrompt: 4100, Added: -2000}); got != 300 {
		t.Errorf("after the history shrank: %d, want the estimate", got)
	}
}
