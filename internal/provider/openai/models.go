package openai

import (
	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/plyhq/ply/internal/provider/transport"
)

// ListModels returns the ids of the endpoint's models (GET {base}/models,
// which OpenAI and most compatible servers answer), sorted.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	return ModelList(ctx, &c.tr, strings.TrimSuffix(c.url, "/chat/completions")+"/models", c.header())
}

// ModelList reads an OpenAI-style model list ({"data":[{"id":…}]}) from
// url; the Responses client shares it.
func ModelList(ctx context.Context, tr *transport.Client, url string, header http.Header) ([]string, error) {
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := tr.GetJSON(ctx, url, header, &body); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(body.Data))
	for _, m := range body.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
