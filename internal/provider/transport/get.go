package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxListBytes caps a list answer (a model list is a few kilobytes; some
// servers list thousands of models).
const maxListBytes = 8 << 20

// listTimeout bounds one list request: the user waits for it.
const listTimeout = 20 * time.Second

// GetJSON sends a GET to url with header added over the defaults, and
// decodes the JSON answer into v. A non-2xx answer is the provider's
// *llm.APIError (StatusError); the whole request is bounded by ctx and a
// 20 s timeout.
func (c *Client) GetJSON(ctx context.Context, url string, header http.Header, v any) error {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Provider, err)
	}
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "ply")
	for k, vs := range header {
		hreq.Header[k] = vs
	}
	hc := c.HTTP
	if hc == nil {
		hc = DefaultHTTPClient
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		return fmt.Errorf("%s: sending request: %w", c.Provider, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body = credentialFreeBody(resp.Body, hreq.Header)
		return c.StatusError(resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListBytes+1))
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", c.Provider, err)
	}
	if len(body) > maxListBytes {
		return &ResponseTooLargeError{Provider: c.Provider, Limit: maxListBytes}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: the answer of %s is not the JSON expected: %w", c.Provider, url, err)
	}
	return nil
}
