package responses

import (
	"context"
	"strings"

	"github.com/plyhq/ply/internal/provider/openai"
)

// ListModels returns the ids of the endpoint's models (GET {base}/models),
// sorted.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	return openai.ModelList(ctx, &c.tr, strings.TrimSuffix(c.url, "/responses")+"/models", c.header())
}
