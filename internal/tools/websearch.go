package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// WebSearchName is the web_search tool's name.
const WebSearchName = "web_search"

// Defaults of WebSearchOptions.
const (
	webSearchTimeout    = 30 * time.Second
	webSearchMaxResults = 5
	webSearchMaxBody    = 2 << 20
	// webSearchSnippet caps one result's snippet, in characters.
	webSearchSnippet = 600
)

// WebSearchOptions configures web_search: one backend.
type WebSearchOptions struct {
	// Provider is "tavily", "brave", "searxng" or "google".
	Provider string
	// APIKey is the backend's key; SearXNG needs none.
	APIKey string
	// BaseURL is the SearXNG instance's address, or replaces another
	// backend's endpoint (a proxy, a test server).
	BaseURL string
	// EngineID is Google Programmable Search's engine id (cx).
	EngineID string
	// MaxResults is how many results a search returns (default 5).
	MaxResults int
	// Client replaces the HTTP client (tests); its timeout is kept.
	Client *http.Client
}

// SearchResult is one hit.
type SearchResult struct {
	Title, URL, Snippet string
}

// WebSearch is the web_search tool: it asks the configured search
// backend and returns titles, URLs and snippets.
type WebSearch struct {
	opts    WebSearchOptions
	backend searchBackend
	client  *http.Client
}

// searchBackend builds a backend's request and reads its answer.
type searchBackend struct {
	endpoint string
	request  func(o WebSearchOptions, endpoint, query string) (*http.Request, error)
	parse    func(body []byte) ([]SearchResult, error)
}

// NewWebSearch returns web_search over opts' backend, or an error saying
// what the configuration lacks.
func NewWebSearch(opts WebSearchOptions) (*WebSearch, error) {
	b, ok := searchBackends[strings.ToLower(opts.Provider)]
	if !ok {
		return nil, fmt.Errorf("web search provider %q is not one of tavily, brave, searxng, google", opts.Provider)
	}
	p := strings.ToLower(opts.Provider)
	switch {
	case p != "searxng" && opts.APIKey == "":
		return nil, fmt.Errorf("web search provider %s needs an API key (the variable named by apiKeyEnv is empty)", p)
	case p == "searxng" && opts.BaseURL == "":
		return nil, errors.New("web search provider searxng needs baseUrl, the instance's address")
	case p == "google" && opts.EngineID == "":
		return nil, errors.New("web search provider google needs engineId, the Programmable Search engine (cx)")
	}
	if opts.MaxResults <= 0 {
		opts.MaxResults = webSearchMaxResults
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: webSearchTimeout}
	}
	if opts.BaseURL != "" {
		b.endpoint = opts.BaseURL
	}
	return &WebSearch{opts: opts, backend: b, client: client}, nil
}

func (*WebSearch) Name() string { return WebSearchName }

// Kind is KindFetch: the query leaves the machine, so it asks as
// web_fetch does.
func (*WebSearch) Kind() Kind { return KindFetch }

func (*WebSearch) Description() string {
	return "Searches the web and returns the top results, each with its title, URL and a snippet. " +
		"Use it for information newer than your training or outside this repository; then read a page with web_fetch when the snippet is not enough."
}

func (*WebSearch) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","minLength":1,"description":"The search query."}},"required":["query"],"additionalProperties":false}`)
}

func (t *WebSearch) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	var p struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(args, &p); err != nil || strings.TrimSpace(p.Query) == "" {
		return Errorf("INVALID_TOOL_PARAMS", "web_search needs a non-empty query."), nil
	}
	q := strings.TrimSpace(p.Query)
	results, err := t.Search(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Errorf("WEB_SEARCH_FAILED", "The web search for %q failed: %v", q, err), nil
	}
	return Result{Output: FormatResults(q, results), Display: fmt.Sprintf("%d result(s) for %q", len(results), q)}, nil
}

// Search asks the backend for query.
func (t *WebSearch) Search(ctx context.Context, query string) ([]SearchResult, error) {
	req, err := t.backend.request(t.opts, t.backend.endpoint, query)
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	req = req.WithContext(ctx)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ply")
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, t.scrub(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, webSearchMaxBody))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", t.scrub(err))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the search service answered %s: %s", resp.Status, t.scrub(errors.New(excerpt(body, 300))))
	}
	rs, err := t.backend.parse(body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(rs) > t.opts.MaxResults {
		rs = rs[:t.opts.MaxResults]
	}
	return rs, nil
}

// scrub removes the API key from err's text: Google's key is in the URL,
// which the HTTP client quotes in its errors.
func (t *WebSearch) scrub(err error) error {
	if t.opts.APIKey == "" || !strings.Contains(err.Error(), t.opts.APIKey) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), t.opts.APIKey, "[key]"))
}

// FormatResults is what the model reads: a numbered list of titles, URLs
// and snippets.
func FormatResults(query string, rs []SearchResult) string {
	if len(rs) == 0 {
		return fmt.Sprintf("No web results for %q.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Web search results for %q:\n", query)
	for i, r := range rs {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, oneLineText(r.Title), r.URL)
		if s := oneLineText(r.Snippet); s != "" {
			fmt.Fprintf(&b, "   %s\n", truncateRunes(s, webSearchSnippet))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func excerpt(b []byte, n int) string {
	return truncateRunes(oneLineText(string(b)), n)
}
