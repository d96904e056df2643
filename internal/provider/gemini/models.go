package gemini

import (
	"context"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// maxListPages bounds the pages of a model list read.
const maxListPages = 10

// ListModels returns the names of the endpoint's models that generate
// content (GET {base}/v1beta/models, page by page), without their
// "models/" prefix, sorted.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	base := c.base + "/v1beta/models?pageSize=1000"
	var ids []string
	token := ""
	for range maxListPages {
		u := base
		if token != "" {
			u += "&pageToken=" + url.QueryEscape(token)
		}
		var body struct {
			Models []struct {
				Name    string   `json:"name"`
				Methods []string `json:"supportedGenerationMethods"`
			} `json:"models"`
			Next string `json:"nextPageToken"`
		}
		if err := c.tr.GetJSON(ctx, u, c.header(), &body); err != nil {
			return nil, err
		}
		for _, m := range body.Models {
			name := strings.TrimPrefix(m.Name, "models/")
			if name != "" && (m.Methods == nil || slices.Contains(m.Methods, "generateContent") || slices.Contains(m.Methods, "streamGenerateContent")) {
				ids = append(ids, name)
			}
		}
		if body.Next == "" || body.Next == token {
			break
		}
		token = body.Next
	}
	sort.Strings(ids)
	return ids, nil
}
