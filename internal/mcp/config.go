package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// Transport says how ply talks to a server.
type Transport string

const (
	// TransportStdio runs a command and speaks over its stdin and stdout.
	TransportStdio Transport = "stdio"
	// TransportHTTP is the streamable HTTP transport.
	TransportHTTP Transport = "http"
	// TransportSSE is the older HTTP+SSE transport.
	TransportSSE Transport = "sse"
	// TransportAuto is a "url" without a "type": streamable HTTP first,
	// then HTTP+SSE if the server does not speak it.
	TransportAuto Transport = "auto"
)

// Defaults used when a server or Options leave a timeout at zero.
const (
	DefaultCallTimeout    = 2 * time.Minute
	DefaultConnectTimeout = 30 * time.Second
)

// ServerConfig is one validated entry of "mcpServers".
type ServerConfig struct {
	// Name is the key as configured.
	Name string
	// ID is Name restricted to [A-Za-z0-9_-] (other characters become
	// '_'); it is the <server> part of tool names.
	ID        string
	Transport Transport

	// Stdio: Command is run with Args, in Cwd (the current directory if
	// empty), with the environment Options.Env (ply's without its
	// secrets), the variables EnvVars names taken from ply's own
	// environment, and Env over them.
	Command string
	Args    []string
	Env     map[string]string
	EnvVars []string
	Cwd     string

	// Embedded: RoundTrip carries each message (see EmbeddedServer).
	RoundTrip RoundTrip

	// HTTP: URL, sent with Headers.
	URL     string
	Headers map[string]string

	// Timeout bounds each tool call; zero means DefaultCallTimeout.
	Timeout time.Duration
	// IncludeTools, when not empty, keeps only the tools named; then
	// ExcludeTools drops the tools named. Names are the server's.
	IncludeTools []string
	ExcludeTools []string
	// Disabled servers are parsed and listed but never started.
	Disabled bool
	// Trust says the user trusts the server: its annotations.readOnlyHint
	// counts (its read-only tools are KindRead) and the caller may allow
	// its calls unasked. A caller must honour it only from the user's own
	// configuration, never from a project's.
	Trust       bool
	Description string
}

// ConfigError is a problem with one server entry.
type ConfigError struct {
	Server string
	// Field is the JSON field at fault; empty for the entry as a whole.
	Field string
	Msg   string
	Err   error
}

func (e *ConfigError) Error() string {
	where := "mcpServers." + e.Server
	if e.Field != "" {
		where += "." + e.Field
	}
	msg := e.Msg
	if e.Err != nil {
		if msg != "" {
			msg += ": "
		}
		msg += e.Err.Error()
	}
	return where + ": " + msg
}

func (e *ConfigError) Unwrap() error { return e.Err }

// rawServer is the JSON shape shared by the peers' configurations. Fields
// this package does not know are ignored, so that configurations copied
// from other agents load.
type rawServer struct {
	Type         string            `json:"type"`
	Command      string            `json:"command"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	EnvVars      []string          `json:"envVars"`
	EnvVarsSnake []string          `json:"env_vars"`
	Cwd          string            `json:"cwd"`
	URL          string            `json:"url"`
	HTTPURL      string            `json:"httpUrl"`
	Headers      map[string]string `json:"headers"`
	Timeout      *float64          `json:"timeout"`
	IncludeTools []string          `json:"includeTools"`
	ExcludeTools []string          `json:"excludeTools"`
	Disabled     bool              `json:"disabled"`
	Enabled      *bool             `json:"enabled"`
	Trust        bool              `json:"trust"`
	Description  string            `json:"description"`
}

// ParseServers validates the "mcpServers" object of the settings, one raw
// JSON value per server. Environment references ($VAR, ${VAR} and
// ${VAR:-default}) are expanded in every string. The result holds every
// valid server even when the error is not nil; the error joins one
// *ConfigError per invalid entry, so a caller may report it and go on.
func ParseServers(raw map[string]json.RawMessage) (map[string]ServerConfig, error) {
	return parseServers(raw, os.LookupEnv)
}

func parseServers(raw map[string]json.RawMessage, lookup func(string) (string, bool)) (map[string]ServerConfig, error) {
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make(map[string]ServerConfig, len(raw))
	byID := make(map[string]string, len(raw))
	var errs []error
	for _, name := range names {
		sc, err := parseServer(name, raw[name], lookup)
		if err == nil {
			if other, dup := byID[sc.ID]; dup {
				err = &ConfigError{Server: name, Msg: fmt.Sprintf("name is the same as %q once restricted to [A-Za-z0-9_-] (%q); rename one", other, sc.ID)}
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		byID[sc.ID] = name
		out[name] = sc
	}
	return out, errors.Join(errs...)
}

func parseServer(name string, data json.RawMessage, lookup func(string) (string, bool)) (ServerConfig, error) {
	if strings.TrimSpace(name) == "" {
		return ServerConfig{}, &ConfigError{Server: name, Msg: "the server name is empty"}
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return ServerConfig{}, &ConfigError{Server: name, Msg: "the entry must be a JSON object"}
	}
	var r rawServer
	if err := json.Unmarshal(data, &r); err != nil {
		return ServerConfig{}, &ConfigError{Server: name, Msg: "invalid server entry", Err: err}
	}
	exp := func(s string) string { return expandEnv(s, lookup) }
	sc := ServerConfig{
		Name:         name,
		ID:           sanitize(name),
		Command:      exp(r.Command),
		Args:         mapSlice(r.Args, exp),
		Env:          mapValues(r.Env, exp),
		EnvVars:      append(slices.Clone(r.EnvVars), r.EnvVarsSnake...),
		Cwd:          exp(r.Cwd),
		Headers:      mapValues(r.Headers, exp),
		IncludeTools: r.IncludeTools,
		ExcludeTools: r.ExcludeTools,
		Disabled:     r.Disabled || (r.Enabled != nil && !*r.Enabled),
		Trust:        r.Trust,
		Description:  r.Description,
	}
	for _, v := range sc.EnvVars {
		if v == "" || strings.ContainsAny(v, "=\x00$") {
			return ServerConfig{}, &ConfigError{Server: name, Field: "envVars", Msg: fmt.Sprintf("%q is not the name of a variable", v)}
		}
	}
	if r.Timeout != nil {
		ms := *r.Timeout
		if ms < 0 || ms > float64(24*time.Hour/time.Millisecond) {
			return ServerConfig{}, &ConfigError{Server: name, Field: "timeout", Msg: fmt.Sprintf("must be milliseconds between 0 and one day, not %v", ms)}
		}
		sc.Timeout = time.Duration(ms * float64(time.Millisecond))
	}
	if r.URL != "" && r.HTTPURL != "" {
		return ServerConfig{}, &ConfigError{Server: name, Msg: `has both "url" and "httpUrl"; keep one`}
	}
	u := r.URL
	if r.HTTPURL != "" {
		u = r.HTTPURL
	}
	u = exp(u)
	hasCmd, hasURL := r.Command != "", u != ""
	switch {
	case hasCmd && hasURL:
		return ServerConfig{}, &ConfigError{Server: name, Msg: `has both "command" and "url"; a server is either a command or a URL`}
	case !hasCmd && !hasURL:
		return ServerConfig{}, &ConfigError{Server: name, Msg: `needs "command" or "url"`}
	}
	if hasCmd && sc.Command == "" {
		return ServerConfig{}, &ConfigError{Server: name, Field: "command", Msg: fmt.Sprintf("%q expands to an empty string", r.Command)}
	}
	tr, err := transportOf(r.Type, hasCmd, r.HTTPURL != "")
	if err != nil {
		return ServerConfig{}, &ConfigError{Server: name, Field: "type", Err: err}
	}
	sc.Transport = tr
	if hasURL {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return ServerConfig{}, &ConfigError{Server: name, Field: "url", Msg: fmt.Sprintf("%q is not an http or https URL", u)}
		}
		sc.URL = u
	}
	return sc, nil
}

// transportOf decides the transport from "type" and the fields present.
func transportOf(typ string, hasCmd, httpURL bool) (Transport, error) {
	switch strings.ToLower(typ) {
	case "":
		switch {
		case hasCmd:
			return TransportStdio, nil
		case httpURL:
			return TransportHTTP, nil
		}
		return TransportAuto, nil
	case "stdio":
		if !hasCmd {
			return "", errors.New(`is "stdio" but there is no "command"`)
		}
		return TransportStdio, nil
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		if hasCmd {
			return "", fmt.Errorf(`is %q but there is a "command" and no "url"`, typ)
		}
		return TransportHTTP, nil
	case "sse":
		if hasCmd || httpURL {
			return "", errors.New(`is "sse", which needs "url"`)
		}
		return TransportSSE, nil
	}
	return "", fmt.Errorf(`unknown transport %q (want "stdio", "http" or "sse")`, typ)
}

// ParseConfigFlag parses the value of --mcp-config: inline JSON when it
// starts with '{', otherwise the path of a JSON file. Both have the shape
// {"mcpServers": {"name": {...}}}; a bare {"name": {...}} is accepted too.
// An object with an "mcpServers" key is always read as the wrapped shape
// (its other keys are ignored). The result and error are as for
// ParseServers.
func ParseConfigFlag(s string) (map[string]ServerConfig, error) {
	data := []byte(strings.TrimSpace(s))
	source := "inline JSON"
	if len(data) == 0 {
		return nil, errors.New("--mcp-config: empty value; give JSON or the path of a JSON file")
	}
	if data[0] != '{' {
		var err error
		source = s
		data, err = os.ReadFile(s)
		if err != nil {
			return nil, fmt.Errorf("--mcp-config: reading the configuration file: %w", err)
		}
	}
	raw, err := decodeServers(data)
	if err != nil {
		return nil, fmt.Errorf("--mcp-config: %s: %w", source, err)
	}
	return ParseServers(raw)
}

// decodeServers reads either shape accepted by ParseConfigFlag.
func decodeServers(data []byte) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if top == nil {
		return nil, errors.New(`want an object such as {"mcpServers": {...}}`)
	}
	if inner, ok := top["mcpServers"]; ok {
		var servers map[string]json.RawMessage
		if err := json.Unmarshal(inner, &servers); err != nil {
			return nil, fmt.Errorf(`"mcpServers" must be an object of servers: %w`, err)
		}
		return servers, nil
	}
	return top, nil
}

// expandEnv replaces $VAR, ${VAR} and ${VAR:-default}; an unset variable
// becomes empty, as in a shell.
func expandEnv(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return os.Expand(s, func(name string) string {
		key, def, hasDef := strings.Cut(name, ":-")
		v, ok := lookup(key)
		if hasDef && (!ok || v == "") {
			return def
		}
		return v
	})
}

func mapSlice(in []string, f func(string) string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

func mapValues(in map[string]string, f func(string) string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}
