package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is a server's prompt, offered to the user as the slash command
// Command: /mcp__<server>__<prompt>.
type Prompt struct {
	Command     string
	Server      string // the configured name
	Name        string // the server's
	Description string
	Args        []PromptArg
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name        string
	Description string
	Required    bool
}

// Prompts waits as Tools does and lists the prompts of the connected
// servers that offer some, in server then prompt order.
func (m *Manager) Prompts(ctx context.Context) []Prompt {
	var out []Prompt
	for _, name := range m.names {
		s := m.servers[name]
		if s.wait(ctx) != nil || s.err != nil || s.deadError() != nil {
			continue
		}
		ir := s.session.InitializeResult()
		if ir == nil || ir.Capabilities == nil || ir.Capabilities.Prompts == nil {
			continue
		}
		for p, err := range s.session.Prompts(ctx, nil) {
			if err != nil {
				m.opts.Logger.Warn("listing MCP prompts", "server", name, "err", err)
				break
			}
			out = append(out, newPrompt(s, p))
		}
	}
	return out
}

func newPrompt(s *server, p *sdk.Prompt) Prompt {
	pr := Prompt{Command: "/" + ToolName(s.cfg.ID, p.Name), Server: s.cfg.Name, Name: p.Name, Description: firstLine(p.Description)}
	for _, a := range p.Arguments {
		pr.Args = append(pr.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return pr
}

// GetPrompt renders the prompt of the slash command command with the
// arguments typed after it, and returns its messages' text, which is what
// the user sends. Arguments are words (quotes group words), given in the
// prompt's order, or name=value.
func (m *Manager) GetPrompt(ctx context.Context, command, args string) (string, error) {
	var found *Prompt
	var srv *server
	for _, name := range m.names {
		s := m.servers[name]
		if !strings.HasPrefix(command, "/"+ToolPrefix+s.cfg.ID+"__") {
			continue
		}
		for _, p := range m.Prompts(ctx) {
			if p.Command == command {
				found, srv = &p, s
				break
			}
		}
	}
	if found == nil {
		return "", fmt.Errorf("no MCP prompt %s", command)
	}
	values, err := promptArgs(found.Args, args)
	if err != nil {
		return "", fmt.Errorf("%s: %w", command, err)
	}
	cctx, cancel := context.WithTimeout(ctx, cmpTimeout(srv.cfg.Timeout))
	defer cancel()
	res, err := srv.session.GetPrompt(cctx, &sdk.GetPromptParams{Name: found.Name, Arguments: values})
	if err != nil {
		return "", fmt.Errorf("getting the prompt %q from the MCP server %q: %w", found.Name, found.Server, err)
	}
	var parts []string
	for _, msg := range res.Messages {
		switch c := msg.Content.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			}
		}
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("the prompt %q of the MCP server %q has no text", found.Name, found.Server)
	}
	return strings.Join(parts, "\n\n"), nil
}

// promptArgs maps the typed arguments onto the prompt's: name=value sets
// that argument, other words fill the arguments not set, in order.
func promptArgs(want []PromptArg, typed string) (map[string]string, error) {
	words, err := splitWords(typed)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	known := map[string]bool{}
	for _, a := range want {
		known[a.Name] = true
	}
	var positional []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && known[k] {
			out[k] = v
			continue
		}
		positional = append(positional, w)
	}
	for _, a := range want {
		if _, set := out[a.Name]; set || len(positional) == 0 {
			continue
		}
		out[a.Name], positional = positional[0], positional[1:]
	}
	if len(positional) > 0 {
		// More words than arguments: the last argument takes the rest.
		if len(want) == 0 {
			return nil, errors.New("the prompt takes no arguments")
		}
		last := want[len(want)-1].Name
		out[last] = strings.Join(append([]string{out[last]}, positional...), " ")
	}
	var missing []string
	for _, a := range want {
		if a.Required && out[a.Name] == "" {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing required argument(s): %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// splitWords splits s at blanks; double or single quotes group words.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("an unterminated quote in the arguments")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
