package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/acp"
	"github.com/plyhq/ply/internal/settings"
)

// acpModels is what an ACP client may pick as the model: the one in use
// and those of the configured providers that the session's provider
// serves. UNFINISHED: switching to another provider's model (its wire
// format, endpoint and key) within a session is not done, so those
// models are not offered.
func acpModels(cfg *config, current string) []acp.Model {
	var out []acp.Model
	for _, m := range availableModels(cfg, current) {
		if m.Provider != "" && !sameEndpoint(cfg, cfg.settings.ModelProviders[m.Provider]) {
			continue
		}
		out = append(out, acp.Model{ID: m.ID, Name: m.Label, Description: m.Provider})
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

// acpModelCheck refuses id when it is empty or the model of another
// configured provider; any other name goes to the session's provider,
// as the terminal UI's /model does.
func acpModelCheck(cfg *config, models []acp.Model, id string) error {
	if strings.TrimSpace(id) == "" {
		return errors.New("empty model name")
	}
	for _, m := range models {
		if m.ID == id {
			return nil
		}
	}
	for name, mp := range cfg.settings.ModelProviders {
		if mp.Model == id && !sameEndpoint(cfg, mp) {
			return fmt.Errorf("model %q is provider %q's, not this session's provider's: start ply with --provider %s to use it", id, name, name)
		}
	}
	return nil
}

// acpCommands are ply's commands that make sense for an ACP client: those
// that act on the conversation. (The terminal UI's others show its own
// state, or are the client's job: sessions, the model, the mode.)
func acpCommands(c *core) []acp.Command {
	ch, sess := c.chat, c.sess
	return []acp.Command{{
		Name:        "compress",
		Description: "Summarise the older conversation now, to free context",
		Run: func(ctx context.Context, _ string) (string, error) {
			ev, ok := ch.Compress(ctx)
			if !ok {
				return "Nothing to compress: the conversation is already short.", nil
			}
			sess.w.AppendCompaction(ch.History())
			return fmt.Sprintf("Compressed the conversation: about %d tokens before, %d after.", ev.TokensBefore, ev.TokensAfter), nil
		},
	}}
}
