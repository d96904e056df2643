package core

import (
	"cmp"
	"strings"

	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/tools"
)

// SearchKeyEnv is the variable holding the search backend's key: the one
// the settings name, or the provider's usual one.
func SearchKeyEnv(ws settings.WebSearch) string {
	defaults := map[string]string{"tavily": "TAVILY_API_KEY", "brave": "BRAVE_API_KEY", "google": "GOOGLE_API_KEY"}
	return cmp.Or(ws.APIKeyEnv, defaults[strings.ToLower(ws.Provider)])
}

// webSearchTool is web_search over the backend of the user's own
// settings (a project's file may not choose where queries and the key
// go), or nil when none is configured.
func webSearchTool(ws settings.WebSearch, getenv func(string) string) (*tools.WebSearch, error) {
	if ws.Provider == "" {
		return nil, nil
	}
	key := ""
	if env := SearchKeyEnv(ws); env != "" {
		key = getenv(env)
	}
	return tools.NewWebSearch(tools.WebSearchOptions{
		Provider: ws.Provider, APIKey: key, BaseURL: ws.BaseURL, EngineID: ws.EngineID, MaxResults: ws.MaxResults,
	})
}
