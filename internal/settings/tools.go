package settings

// Tools configures the tools.
type Tools struct {
	// ShellOutputLimit caps the characters of a command's output that
	// the model gets (its first and last lines); the whole output is
	// saved with the session. 0 keeps the default (16000).
	ShellOutputLimit int `json:"shellOutputLimit"`

	// Deferred MCP tools and web search.

	// ToolSearch decides when MCP tools are deferred behind tool_search.
	ToolSearch ToolSearch `json:"toolSearch"`
	// WebSearch configures the web_search tool's backend; without one
	// the tool is not offered.
	WebSearch WebSearch `json:"webSearch"`
}

// ToolSearch is "tools": {"toolSearch": {...}}, with Qwen Code's keys:
// MCP tools are declared by name only when their declarations would take
// more than Threshold percent of the context window (default 10) or there
// are more than MaxTools of them (default 40).
type ToolSearch struct {
	// Enabled false always declares every tool in full.
	Enabled *bool `json:"enabled"`
	// Threshold is a percentage of the context window; 0 defers always.
	Threshold *int `json:"threshold"`
	MaxTools  int  `json:"maxTools"`
}

// WebSearch is "tools": {"webSearch": {...}}: one backend and where its
// key is. The key itself is never in a settings file, only the name of
// the variable holding it.
type WebSearch struct {
	// Provider is "tavily", "brave", "searxng" or "google".
	Provider string `json:"provider"`
	// APIKeyEnv names the variable holding the key (Tavily, Brave,
	// Google); defaults TAVILY_API_KEY, BRAVE_API_KEY, GOOGLE_API_KEY.
	APIKeyEnv string `json:"apiKeyEnv"`
	// BaseURL is the SearXNG instance, or overrides a service's endpoint.
	BaseURL string `json:"baseUrl"`
	// EngineID is Google Programmable Search's engine (cx).
	EngineID string `json:"engineId"`
	// MaxResults is how many results a search returns (default 5).
	MaxResults int `json:"maxResults"`
}

func (t Tools) over(o Tools) Tools {
	if o.ShellOutputLimit != 0 {
		t.ShellOutputLimit = o.ShellOutputLimit
	}
	if o.ToolSearch.Enabled != nil {
		t.ToolSearch.Enabled = o.ToolSearch.Enabled
	}
	if o.ToolSearch.Threshold != nil {
		t.ToolSearch.Threshold = o.ToolSearch.Threshold
	}
	if o.ToolSearch.MaxTools != 0 {
		t.ToolSearch.MaxTools = o.ToolSearch.MaxTools
	}
	if o.WebSearch.Provider != "" {
		t.WebSearch = o.WebSearch
	}
	return t
}
