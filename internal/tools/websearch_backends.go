package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"
)

// searchBackends are the services web_search speaks to, by provider name.
var searchBackends = map[string]searchBackend{
	"tavily": {
		endpoint: "https://api.tavily.com/search",
		request: func(o WebSearchOptions, endpoint, q string) (*http.Request, error) {
			body, err := json.Marshal(map[string]any{"query": q, "max_results": o.MaxResults})
			if err != nil {
				return nil, err
			}
			req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+o.APIKey)
			return req, nil
		},
		parse: parseResultsList,
	},
	"brave": {
		endpoint: "https://api.search.brave.com/res/v1/web/search",
		request: func(o WebSearchOptions, endpoint, q string) (*http.Request, error) {
			req, err := getWith(endpoint, url.Values{"q": {q}, "count": {strconv.Itoa(o.MaxResults)}})
			if err == nil {
				req.Header.Set("X-Subscription-Token", o.APIKey)
			}
			return req, err
		},
		parse: func(body []byte) ([]SearchResult, error) {
			var r struct {
				Web struct {
					Results []struct{ Title, URL, Description string }
				}
			}
			if err := json.Unmarshal(body, &r); err != nil {
				return nil, err
			}
			out := make([]SearchResult, len(r.Web.Results))
			for i, x := range r.Web.Results {
				// Brave marks the query's words with <strong>.
				out[i] = SearchResult{stripTags(x.Title), x.URL, stripTags(x.Description)}
			}
			return out, nil
		},
	},
	"searxng": {
		request: func(o WebSearchOptions, endpoint, q string) (*http.Request, error) {
			u, err := url.JoinPath(endpoint, "search")
			if err != nil {
				return nil, err
			}
			return getWith(u, url.Values{"q": {q}, "format": {"json"}})
		},
		parse: parseResultsList,
	},
	"google": {
		endpoint: "https://www.googleapis.com/customsearch/v1",
		request: func(o WebSearchOptions, endpoint, q string) (*http.Request, error) {
			return getWith(endpoint, url.Values{"key": {o.APIKey}, "cx": {o.EngineID}, "q": {q}, "num": {strconv.Itoa(min(o.MaxResults, 10))}})
		},
		parse: func(body []byte) ([]SearchResult, error) {
			var r struct {
				Items []struct{ Title, Link, Snippet string }
			}
			if err := json.Unmarshal(body, &r); err != nil {
				return nil, err
			}
			out := make([]SearchResult, len(r.Items))
			for i, x := range r.Items {
				out[i] = SearchResult{x.Title, x.Link, x.Snippet}
			}
			return out, nil
		},
	},
}

// parseResultsList reads the {"results": [{"title", "url", "content"}]}
// answer that Tavily and SearXNG both give.
func parseResultsList(body []byte) ([]SearchResult, error) {
	var r struct {
		Results []struct{ Title, URL, Content string }
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]SearchResult, len(r.Results))
	for i, x := range r.Results {
		out[i] = SearchResult{x.Title, x.URL, x.Content}
	}
	return out, nil
}

// getWith is a GET of endpoint with the query string q added to its own.
func getWith(endpoint string, q url.Values) (*http.Request, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("the endpoint %q: %w", endpoint, err)
	}
	all := u.Query()
	for k, v := range q {
		all[k] = v
	}
	u.RawQuery = all.Encode()
	return http.NewRequest(http.MethodGet, u.String(), nil)
}

var tagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })

func stripTags(s string) string { return html.UnescapeString(tagRE().ReplaceAllString(s, "")) }
