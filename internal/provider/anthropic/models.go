package anthropic

import (
	"context"
	"net/url"
	"sort"
	"strings"
)

// maxListPages bounds the pages of a model list read.
const maxListPages = 10

// ListModels returns the ids of the endpoint's models (GET
// {base}/v1/models, page by page), sorted.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	base := strings.TrimSuffix(c.url, "/messages") + "/models?limit=1000"
	var ids []string
	after := ""
	for range maxListPages {
		u := base
		if after != "" {
			u += "&after_id=" + url.QueryEscape(after)
		}
		var body struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			HasMore bool   `json:"has_more"`
			LastID  string `json:"last_id"`
		}
		if err := c.tr.GetJSON(ctx, u, c.header(), &body); err != nil {
			return nil, err
		}
		for _, m := range body.Data {
			if m.ID != "" {
				ids = append(ids, m.ID)
			}
		}
		if !body.HasMore || body.LastID == "" || body.LastID == after {
			break
		}
		after = body.LastID
	}
	sort.Strings(ids)
	return ids, nil
}
