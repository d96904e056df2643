package cli

import (
	"context"
	"fmt"

	"github.com/plyhq/ply/internal/acp"
	"github.com/plyhq/ply/internal/core"
)

// acpModels is what an ACP client may pick as the model.
func acpModels(c *core.Session) []acp.Model {
	var out []acp.Model
	for _, m := range c.Models() {
		out = append(out, acp.Model{ID: m.ID, Name: m.Label, Description: m.Provider})
	}
	return out
}

// acpCommands are ply's commands that make sense for an ACP client: those
// that act on the conversation. (The terminal UI's others show its own
// state, or are the client's job: sessions, the model, the mode.)
func acpCommands(c *core.Session) []acp.Command {
	return []acp.Command{{
		Name:        "compress",
		Description: "Summarise the older conversation now, to free context",
		Run: func(ctx context.Context, _ string) (string, error) {
			before, after, ok := c.Compress(ctx, "")
			if !ok {
				return "Nothing to compress: the conversation is already short.", nil
			}
			return fmt.Sprintf("Compressed the conversation: about %d tokens before, %d after.", before, after), nil
		},
	}, acpLoop(c)}
}
