package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/provider/anthropic"
	"github.com/plyhq/ply/internal/provider/gemini"
	"github.com/plyhq/ply/internal/provider/openai"
	"github.com/plyhq/ply/internal/provider/responses"
	"github.com/plyhq/ply/internal/settings"
)

// wireFormat describes one --auth-type: its environment and client.
type wireFormat struct {
	name              string
	keyEnv, baseEnv   string
	modelEnvs         []string
	keyOptional       bool
	defaultBase       string // where requests go without a base URL
	newProvider       func(base, key, model string, headers map[string]string, n netLimits) chat.Provider
	keyFlag, baseFlag func(o *Options) string
}

var wireFormats = []wireFormat{
	{
		name: "openai", keyEnv: "OPENAI_API_KEY", baseEnv: "OPENAI_BASE_URL", modelEnvs: []string{"OPENAI_MODEL"},
		keyFlag: func(o *Options) string { return o.OpenAIKey }, baseFlag: func(o *Options) string { return o.OpenAIBaseURL },
		defaultBase: openai.DefaultBaseURL,
		newProvider: func(base, key, model string, h map[string]string, n netLimits) chat.Provider {
			return openai.New(openai.Config{BaseURL: base, APIKey: key, Model: model, Headers: h,
				StreamIdleTimeout: n.idle, MaxResponseBytes: n.maxBytes})
		},
	},
	{
		name: "openai-responses", keyEnv: "OPENAI_API_KEY", baseEnv: "OPENAI_BASE_URL", modelEnvs: []string{"OPENAI_MODEL"},
		keyFlag: func(o *Options) string { return o.OpenAIKey }, baseFlag: func(o *Options) string { return o.OpenAIBaseURL },
		defaultBase: responses.DefaultBaseURL,
		newProvider: func(base, key, model string, h map[string]string, n netLimits) chat.Provider {
			return responses.New(responses.Config{BaseURL: base, APIKey: key, Model: model, Headers: h,
				StreamIdleTimeout: n.idle, MaxResponseBytes: n.maxBytes})
		},
	},
	{
		name: "gemini", keyEnv: "GEMINI_API_KEY", baseEnv: "GOOGLE_GEMINI_BASE_URL", modelEnvs: []string{"GEMINI_MODEL"},
		defaultBase: gemini.DefaultBaseURL,
		newProvider: func(base, key, model string, h map[string]string, n netLimits) chat.Provider {
			return gemini.New(gemini.Config{BaseURL: base, APIKey: key, Model: model, Headers: h,
				StreamIdleTimeout: n.idle, MaxResponseBytes: n.maxBytes})
		},
	},
	{
		name: "anthropic", keyEnv: "ANTHROPIC_API_KEY", baseEnv: "ANTHROPIC_BASE_URL", modelEnvs: []string{"ANTHROPIC_MODEL"},
		defaultBase: anthropic.DefaultBaseURL,
		newProvider: func(base, key, model string, h map[string]string, n netLimits) chat.Provider {
			return anthropic.New(anthropic.Config{BaseURL: base, APIKey: key, Model: model, Headers: h,
				StreamIdleTimeout: n.idle, MaxResponseBytes: n.maxBytes})
		},
	},
}

// netLimits are the provider client's limits from settings and the
// environment: how long a response may send nothing (headers included),
// and how large one response may grow. Zero takes the provider default.
type netLimits struct {
	idle     time.Duration
	maxBytes int64
}

// resolveNetLimits reads PLY_STREAM_IDLE_TIMEOUT, then the settings'
// model.streamIdleTimeout, and model.maxResponseBytes.
func resolveNetLimits(m settings.Model, env func(string) string) (netLimits, error) {
	var n netLimits
	src, v := "PLY_STREAM_IDLE_TIMEOUT", env("PLY_STREAM_IDLE_TIMEOUT")
	if v == "" {
		src, v = "settings model.streamIdleTimeout", m.StreamIdleTimeout
	}
	if v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return n, fmt.Errorf("%s=%q is not a positive Go duration such as 300s or 2m", src, v)
		}
		n.idle = d
	}
	if m.MaxResponseBytes < 0 {
		return n, fmt.Errorf("settings model.maxResponseBytes=%d must be positive", m.MaxResponseBytes)
	}
	n.maxBytes = m.MaxResponseBytes
	return n, nil
}

func formatNames() string {
	var n []string
	for _, f := range wireFormats {
		n = append(n, f.name)
	}
	return strings.Join(n, ", ")
}

// endpoint describes where c's requests go, for /doctor.
func (c *config) endpoint() core.Endpoint {
	e := core.Endpoint{Wire: c.wire.name, BaseURL: firstNonEmpty(c.baseURL, c.wire.defaultBase), KeyFrom: c.keyEnv}
	if c.keyEnv == "" && c.apiKey != "" {
		e.KeyFrom = "the --" + c.wire.name + "-api-key flag"
	}
	if c.apiKey == "" {
		e.KeyFrom = ""
	}
	return e
}

// resolveProvider picks the wire format and reads its key, base URL and
// model from flags, then the environment.
func resolveProvider(c *config, o *Options, env func(string) string) (code int, err error) {
	// A named provider from settings supplies defaults for everything.
	var named settings.ModelProvider
	if pn := firstNonEmpty(o.Provider, c.settings.Provider); pn != "" {
		mp, ok := c.settings.ModelProviders[pn]
		if !ok {
			return exitcode.Input, fmt.Errorf("unknown provider %q: define it under \"modelProviders\" in settings", pn)
		}
		named = mp
		c.contextWindow, c.maxOutput, c.headers = mp.ContextWindow, mp.MaxOutputTokens, mp.Headers
	}
	name := firstNonEmpty(o.AuthType, named.AuthType, c.settings.AuthType, "openai")
	var wf *wireFormat
	for i := range wireFormats {
		if wireFormats[i].name == name {
			wf = &wireFormats[i]
		}
	}
	if wf == nil {
		return exitcode.Input, fmt.Errorf("unknown --auth-type %q: use one of %s", name, formatNames())
	}
	flag := func(f func(*Options) string) string {
		if f == nil {
			return ""
		}
		return f(o)
	}
	c.wire = wf
	if c.net, err = resolveNetLimits(c.settings.Model, env); err != nil {
		return 52, err
	}
	keyEnv := wf.keyEnv
	if named.APIKeyEnv != "" {
		keyEnv = named.APIKeyEnv
	}
	c.apiKey = firstNonEmpty(flag(wf.keyFlag), env(keyEnv))
	if flag(wf.keyFlag) == "" {
		c.keyEnv = keyEnv
	}
	c.baseURL = firstNonEmpty(flag(wf.baseFlag), named.BaseURL, env(wf.baseEnv))
	c.providerNotice = ""
	if flag(wf.baseFlag) == "" && named.BaseURL != "" && projectRedirects(c, firstNonEmpty(o.Provider, c.settings.Provider), named.BaseURL) {
		c.providerNotice = fmt.Sprintf("ply: note: .ply/settings.json points provider %q at %q, which your own settings do not; the key from %s is sent there",
			firstNonEmpty(o.Provider, c.settings.Provider), named.BaseURL, keyEnv)
	}
	c.model = firstNonEmpty(o.Model, named.Model)
	for _, e := range wf.modelEnvs {
		c.model = firstNonEmpty(c.model, env(e))
	}
	c.model = firstNonEmpty(c.model, c.settings.Model.Name)
	if c.apiKey == "" && !wf.keyOptional {
		hint := ""
		if wf.keyFlag != nil {
			hint = " or pass --" + wf.name + "-api-key"
		}
		return 41, fmt.Errorf("no API key: set %s%s", keyEnv, hint)
	}
	if c.model == "" {
		return exitcode.Input, errors.New("no model: set " + strings.Join(wf.modelEnvs, " or ") + ", pass -m/--model, or set \"model\" in settings")
	}
	return 0, nil
}

// projectRedirects reports whether the base URL of provider name comes
// from the (trusted) project's settings file and not from the user's own:
// the user's key then goes to a host only the project named.
func projectRedirects(c *config, name, baseURL string) bool {
	fromProject, fromUser := false, false
	project := settings.ProjectFile(c.workspace)
	for _, f := range c.settingsFiles {
		mp, ok := f.Settings.ModelProviders[name]
		if !ok || mp.BaseURL != baseURL {
			continue
		}
		if f.Path == project {
			fromProject = true
		} else {
			fromUser = true
		}
	}
	return fromProject && !fromUser
}
