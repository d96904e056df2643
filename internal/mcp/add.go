package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// AddArgs is the parsed command line of `ply mcp add`.
type AddArgs struct {
	Scope     string // "user" (the default) or "project"
	Transport string // "stdio" (the default), "http" or "sse"
	Env       map[string]string
	Headers   map[string]string
	Name      string
	Target    []string // command and args, or the URL
}

// ParseAddArgs reads `ply mcp add` arguments as `claude mcp add` takes
// them: options (anywhere before the command, or before "--"), the name,
// then the command and its arguments or the URL.
func ParseAddArgs(args []string) (AddArgs, error) {
	a := AddArgs{Scope: "user", Transport: "stdio"}
	var pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(pos) >= 2 || !strings.HasPrefix(arg, "-") {
			// After the name and the command, everything is the
			// command's.
			pos = append(pos, arg)
			continue
		}
		name, val, hasVal := strings.Cut(arg, "=")
		if !hasVal {
			if i+1 >= len(args) {
				return a, fmt.Errorf("%s needs a value", arg)
			}
			i++
			val = args[i]
		}
		switch name {
		case "-s", "--scope":
			a.Scope = val
		case "-t", "--transport":
			a.Transport = val
		case "-e", "--env":
			k, v, ok := strings.Cut(val, "=")
			if !ok || k == "" {
				return a, fmt.Errorf("-e %q: want KEY=VALUE", val)
			}
			if a.Env == nil {
				a.Env = map[string]string{}
			}
			a.Env[k] = v
		case "-H", "--header":
			k, v, ok := strings.Cut(val, ":")
			if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(strings.TrimSpace(k), " \t") {
				return a, fmt.Errorf("-H %q: want 'Name: value'", val)
			}
			if a.Headers == nil {
				a.Headers = map[string]string{}
			}
			a.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		default:
			return a, fmt.Errorf("unknown option %q", arg)
		}
	}
	if a.Scope != "user" && a.Scope != "project" {
		return a, fmt.Errorf("--scope %q: want user or project", a.Scope)
	}
	if len(pos) < 2 {
		return a, errors.New("give a name and a command (or, with --transport http|sse, a URL)")
	}
	a.Name, a.Target = pos[0], pos[1:]
	return a, nil
}

// Entry is the settings entry the command line describes, validated as
// ply will read it.
func (a AddArgs) Entry() (json.RawMessage, error) {
	m := map[string]any{}
	switch a.Transport {
	case "stdio":
		if len(a.Headers) > 0 {
			return nil, errors.New("-H is for HTTP servers; a stdio server takes -e")
		}
		m["command"] = a.Target[0]
		if len(a.Target) > 1 {
			m["args"] = a.Target[1:]
		}
	case "http", "sse":
		if len(a.Target) != 1 {
			return nil, fmt.Errorf("an %s server takes one URL, not %q", a.Transport, a.Target)
		}
		if len(a.Env) > 0 {
			return nil, errors.New("-e is for stdio servers; an HTTP server takes -H")
		}
		m["type"], m["url"] = a.Transport, a.Target[0]
	default:
		return nil, fmt.Errorf("--transport %q: want stdio, http or sse", a.Transport)
	}
	if len(a.Env) > 0 {
		m["env"] = a.Env
	}
	if len(a.Headers) > 0 {
		m["headers"] = a.Headers
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding the entry: %w", err)
	}
	// Checked as ply will read it; the file keeps $VARS as written.
	if _, err := ParseServers(map[string]json.RawMessage{a.Name: raw}); err != nil {
		return nil, err
	}
	return raw, nil
}
