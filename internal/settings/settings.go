// Package settings loads ply's settings files: the user's
// (~/.ply/settings.json) and the project's (.ply/settings.json), JSON
// with comments and trailing commas allowed, the project's values
// overriding the user's. A file that does not parse is reported with its
// name, line and column, and nothing is loaded from it.
//
// The project's file is read only when the caller says the folder is
// trusted: it can change the approval mode, add hooks and MCP servers and
// point a provider elsewhere, so an untrusted folder's file is not even
// parsed.
//
// It only reads and merges; what a setting means is up to its consumer.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Settings is the merged view. Raw keeps each file's full object for
// consumers that decode their own section (hooks).
type Settings struct {
	// Model is the "model" entry: a plain name, or Qwen Code's object
	// form with the name and the loop's knobs.
	Model        Model       `json:"model"`
	AuthType     string      `json:"authType"`
	ApprovalMode string      `json:"approvalMode"`
	Permissions  Permissions `json:"permissions"`
	// Provider names the entry of ModelProviders to use.
	Provider       string                   `json:"provider"`
	ModelProviders map[string]ModelProvider `json:"modelProviders"`
	// Hooks is the merged "hooks" object, event by event.
	Hooks map[string]json.RawMessage `json:"hooks"`
	// MCPServers is the merged "mcpServers" object, server by server;
	// each value is parsed by the mcp package.
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	// Tools configures the tools ("tools": {"shellOutputLimit": N}).
	Tools Tools `json:"tools"`
	// WebFetch configures the web_fetch tool. It is not merged: only the
	// user's file may widen web_fetch (see User).
	WebFetch WebFetch `json:"webFetch"`
	// ShellEnvironment adjusts what shell commands, hooks and MCP servers
	// see of ply's environment. It is not merged: only the user's file may
	// hand secrets to children (see User).
	ShellEnvironment ShellEnvironment `json:"shellEnvironment"`
	Checkpointing    Checkpointing    `json:"checkpointing"`
	// UI is how the interactive UI looks ("ui": {"theme": ...}; ui.go).
	UI UI `json:"ui"`
	// IDE connects to the editor ply runs in ("ide": {"enabled": false}
	// turns it off; ide.go).
	IDE IDE `json:"ide"`
	// AllowUnsandboxed accepts running shell commands without the
	// kernel's sandbox where it is missing, as --allow-unsandboxed does.
	// It is not merged: only the user's file may turn the sandbox off.
	AllowUnsandboxed bool `json:"allowUnsandboxed"`
	// Telemetry turns on OpenTelemetry export. It is not merged: only the
	// user's file may send data to a collector (see User).
	Telemetry Telemetry `json:"telemetry"`
	// Sources lists the files read, user first.
	Sources []string `json:"-"`
}

// ModelProvider is a named endpoint: switching provider is one setting or
// one flag (--provider NAME).
type ModelProvider struct {
	AuthType        string            `json:"authType"` // openai, openai-responses, anthropic, gemini
	BaseURL         string            `json:"baseUrl"`
	APIKeyEnv       string            `json:"apiKeyEnv"` // the variable holding the key
	Model           string            `json:"model"`
	ContextWindow   int               `json:"contextWindow"`
	MaxOutputTokens int               `json:"maxOutputTokens"`
	Headers         map[string]string `json:"headers"`
	// Pricing (the cost in /stats and the exit summary) is
	// the model's price in US dollars per million tokens.
	Pricing Pricing `json:"pricing"`
}

// Pricing is a model's price per million tokens; cachedInput is input
// read from the provider's prompt cache (0: priced as input).
type Pricing struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cachedInput"`
	Output      float64 `json:"output"`
}

// Telemetry is the "telemetry" setting: OpenTelemetry export of traces
// and metrics over OTLP/HTTP, off unless Enabled.
type Telemetry struct {
	// Enabled turns export on; off, ply builds no exporter and contacts
	// nothing.
	Enabled bool `json:"enabled"`
	// Endpoint is the collector's OTLP/HTTP base URL (default
	// http://localhost:4318); OTEL_EXPORTER_OTLP_ENDPOINT overrides it.
	Endpoint string `json:"endpoint"`
	// LogPrompts exports the text of prompts, tool arguments and tool
	// results; without it spans carry names, counts and timings only.
	LogPrompts bool `json:"logPrompts"`
}

// IsZero reports whether t sets nothing.
func (t Telemetry) IsZero() bool { return t == Telemetry{} }

// WebFetch configures web_fetch. Private, loopback and link-local
// addresses are refused unless listed here.
type WebFetch struct {
	// AllowPrivate lists hosts, IP addresses or CIDR prefixes (such as
	// "127.0.0.1", "10.0.0.0/8" or "intranet.example") that web_fetch may
	// reach although they are not public.
	AllowPrivate []string `json:"allowPrivate"`
}

// Permissions are rule lists.
type Permissions struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
}

// RuleSources returns each file's rules separately, for messages that say
// where a rule came from.
type RuleSource struct {
	Path string
	Permissions
}

// File is one parsed settings file. Unknown lists its keys ply does not
// read, which are otherwise ignored.
type File struct {
	Path     string
	Settings Settings
	Unknown  []UnknownKey
}

// SyntaxError is a settings file that does not parse.
type SyntaxError struct {
	Path         string
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}

// ProjectFile is the project's settings file under workspace.
func ProjectFile(workspace string) string {
	return filepath.Join(workspace, ".ply", "settings.json")
}

// Load reads the user file under home and, when trusted is true, the
// project file under workspace. Missing files are fine; a broken one is
// an error. An empty home or workspace skips that file.
func Load(home, workspace string, trusted bool) (Settings, []File, error) {
	var paths []string
	if home != "" {
		paths = append(paths, filepath.Join(home, "settings.json"))
	}
	if trusted && workspace != "" {
		paths = append(paths, ProjectFile(workspace))
	}
	var files []File
	for _, p := range paths {
		f, err := loadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Settings{}, nil, err
		}
		files = append(files, f)
	}
	return merge(files), files, nil
}

func loadFile(path string) (File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return File{}, err
		}
		return File{}, fmt.Errorf("reading settings: %w", err)
	}
	var s Settings
	if len(bytes.TrimSpace(StripJSONC(src))) == 0 {
		return File{Path: path}, nil
	}
	if err := DecodeJSONC(path, src, &s); err != nil {
		return File{}, err
	}
	s.Sources = []string{path}
	return File{Path: path, Settings: s, Unknown: unknownKeys(path, StripJSONC(src))}, nil
}

// DecodeJSONC decodes src, the contents of the file at path, into v,
// allowing comments and trailing commas. A value that does not parse or
// does not fit v is a *SyntaxError naming path, line and column, as is
// anything after the first value.
func DecodeJSONC(path string, src []byte, v any) error {
	clean := StripJSONC(src)
	dec := json.NewDecoder(bytes.NewReader(clean))
	if err := dec.Decode(v); err != nil {
		return syntaxError(path, src, clean, err)
	}
	if dec.More() {
		return syntaxError(path, src, clean, fmt.Errorf("unexpected content after the object at offset %d", dec.InputOffset()))
	}
	return nil
}

// syntaxError locates err in the original file. StripJSONC keeps every
// byte's offset (comments become spaces), so offsets map one to one.
func syntaxError(path string, src, clean []byte, err error) error {
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if off == 0 && te.Field != "" {
			// A custom decoder's error carries no offset: point at the
			// field's key instead.
			key := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
			if i := bytes.Index(clean, []byte(`"`+key+`"`)); i >= 0 {
				off = int64(i) + 1
			}
		}
	}
	if off < 0 {
		return &SyntaxError{Path: path, Line: 1, Column: 1, Msg: err.Error()}
	}
	line, col := 1, 1
	for i := int64(0); i < off-1 && i < int64(len(src)); i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	msg := err.Error()
	if te != nil {
		msg = fmt.Sprintf("%q should be %s, not %s", te.Field, te.Type, te.Value)
	}
	return &SyntaxError{Path: path, Line: line, Column: col, Msg: msg}
}

// merge lays later files over earlier ones: scalars replace, rule lists
// add up (a project deny adds to the user's), hooks replace per event.
func merge(files []File) Settings {
	var out Settings
	for _, f := range files {
		s := f.Settings
		out.Model = out.Model.over(s.Model)
		out.Tools = out.Tools.over(s.Tools)
		if s.AuthType != "" {
			out.AuthType = s.AuthType
		}
		if s.ApprovalMode != "" {
			out.ApprovalMode = s.ApprovalMode
		}
		if s.Provider != "" {
			out.Provider = s.Provider
		}
		for name, mp := range s.ModelProviders {
			if out.ModelProviders == nil {
				out.ModelProviders = map[string]ModelProvider{}
			}
			out.ModelProviders[name] = mp
		}
		out.Permissions.Allow = append(out.Permissions.Allow, s.Permissions.Allow...)
		out.Permissions.Ask = append(out.Permissions.Ask, s.Permissions.Ask...)
		out.Permissions.Deny = append(out.Permissions.Deny, s.Permissions.Deny...)
		for ev, h := range s.Hooks {
			if out.Hooks == nil {
				out.Hooks = map[string]json.RawMessage{}
			}
			out.Hooks[ev] = h
		}
		for name, srv := range s.MCPServers {
			if out.MCPServers == nil {
				out.MCPServers = map[string]json.RawMessage{}
			}
			out.MCPServers[name] = srv
		}
		out.Checkpointing = out.Checkpointing.over(s.Checkpointing)
		out.UI = out.UI.over(s.UI)
		out.IDE = out.IDE.over(s.IDE)
		out.Sources = append(out.Sources, f.Path)
	}
	return out
}

// StripJSONC returns src with // and /* */ comments replaced by spaces and
// trailing commas before } or ] replaced by a space, so the result is JSON
// with every byte at its original offset (errors keep their line and
// column).
func StripJSONC(src []byte) []byte {
	out := bytes.Clone(src)
	// Pass 1: comments.
	scan(out, func(i int) int {
		switch {
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
			return i
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for j := i; j < stop; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			return stop - 1
		}
		return i
	})
	// Pass 2: trailing commas, now that comments are blanks.
	scan(out, func(i int) int {
		if out[i] != ',' {
			return i
		}
		j := i + 1
		for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
			j++
		}
		if j < len(out) && (out[j] == '}' || out[j] == ']') {
			out[i] = ' '
		}
		return i
	})
	return out
}

// scan calls f at every byte outside string literals; f returns the index
// of the last byte it consumed.
func scan(b []byte, f func(i int) int) {
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		i = f(i)
	}
}
