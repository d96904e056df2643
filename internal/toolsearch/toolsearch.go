// Package toolsearch defers tools: past a threshold, MCP tools are
// declared to the model by name only, in the description of the
// tool_search tool, and each one's schema is declared from the request
// after the model finds it through tool_search.
//
// It owns the threshold (ShouldDefer), the tool_search tool and the
// wrapper that makes a call to a tool not loaded yet fail clearly. The
// registry (tools.Registry) keeps which tools are deferred and puts a
// loaded one at the end of the declarations, so that requests stay
// prompt-cache friendly: the tools list only grows at its end.
package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// Name is the tool's name, as in Qwen Code.
const Name = "tool_search"

// Defaults of the threshold: MCP tools are deferred when their
// declarations would take more than DefaultPercent of the context window,
// or when there are more than DefaultMaxTools of them.
const (
	DefaultPercent    = 10
	DefaultMaxTools   = 40
	DefaultMaxResults = 5
	maxResultsCap     = 20
)

// Threshold is the "tools": {"toolSearch": {...}} setting.
type Threshold struct {
	// Enabled false never defers; nil or true defers past the threshold.
	Enabled *bool
	// Percent of the context window the tools may take before they are
	// deferred; nil means DefaultPercent, 0 defers always.
	Percent *int
	// MaxTools is the number of tools offered in full at most; 0 means
	// DefaultMaxTools.
	MaxTools int
}

// ShouldDefer reports whether ts, declared in full, pass th in a context
// window of window tokens.
func ShouldDefer(ts []tools.Tool, window int, th Threshold) bool {
	if len(ts) == 0 || (th.Enabled != nil && !*th.Enabled) {
		return false
	}
	maxTools := th.MaxTools
	if maxTools <= 0 {
		maxTools = DefaultMaxTools
	}
	if len(ts) > maxTools {
		return true
	}
	percent := DefaultPercent
	if th.Percent != nil {
		percent = *th.Percent
	}
	return Tokens(ts)*100 > percent*window
}

// Tokens estimates the tokens the declarations of ts take, at four bytes
// a token as the chat's estimate counts them.
func Tokens(ts []tools.Tool) int {
	n := 0
	for _, t := range ts {
		n += len(t.Name()) + len(t.Description()) + len(t.Schema())
	}
	return (n + 3) / 4 // rounded up: a tool is never free
}

// Tool is tool_search: it finds deferred tools by keywords or by name,
// declares their schemas from the next request on, and returns them.
type Tool struct {
	reg    *tools.Registry
	onLoad func([]string)
	desc   string
}

var _ tools.Tool = (*Tool)(nil)

// New returns tool_search over reg's deferred tools. Its description,
// which names every deferred tool, is fixed now: call New after the
// tools are deferred. onLoad, which may be nil, is called with the names
// loaded each time some are, so that the caller can declare them.
func New(reg *tools.Registry, onLoad func([]string)) *Tool {
	var b strings.Builder
	b.WriteString(`Loads the declarations of deferred tools so that you can call them. The tools listed below exist but their parameters are not declared yet; search for them here first. Every tool found is added to your tool list for the rest of the session and its declaration (name, description, parameter schema) is returned in a <functions> block; then call it directly.

Query forms:
- "select:name1,name2" loads these exact tools
- "keyword phrase" loads the best matches by name and description (up to max_results)
- "+word other" loads only tools whose name contains "word", ranked by the other words

Deferred tools:`)
	for _, t := range reg.Deferred() {
		b.WriteString("\n" + t.Name())
	}
	return &Tool{reg: reg, onLoad: onLoad, desc: b.String()}
}

func (t *Tool) Name() string        { return Name }
func (t *Tool) Description() string { return t.desc }

// Kind is KindSearch: it reads declarations and changes nothing but what
// the model is offered, so it never asks.
func (t *Tool) Kind() tools.Kind { return tools.KindSearch }

func (t *Tool) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"query":{"type":"string","minLength":1,"description":"Query to find deferred tools. Use \"select:<tool_name>\" for direct selection, or keywords to search."},`+
		`"max_results":{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"Maximum number of results to return (default: %d)"}},`+
		`"required":["query"],"additionalProperties":false}`, maxResultsCap, DefaultMaxResults, DefaultMaxResults))
}

type params struct {
	Query      string `json:"query"`
	MaxResults int    `json:"max_results"`
}

func (t *Tool) Execute(_ context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p params
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("INVALID_TOOL_PARAMS", "Invalid arguments for %s: %v", Name, err), nil
	}
	q := strings.TrimSpace(p.Query)
	if q == "" {
		return tools.Errorf("INVALID_TOOL_PARAMS", `The query is empty. Use "select:<tool_name>" or keywords.`), nil
	}
	limit := p.MaxResults
	if limit <= 0 {
		limit = DefaultMaxResults
	}
	limit = min(limit, maxResultsCap)
	if rest, ok := cutPrefixFold(q, "select:"); ok {
		return t.selectNames(rest, limit), nil
	}
	found := match(t.reg.Deferred(), q, limit)
	if len(found) == 0 {
		return tools.Result{Output: fmt.Sprintf("No deferred tools match %q. Try other keywords, or select:<tool_name> with a name from the list in this tool's description.", q)}, nil
	}
	return t.load(found, nil, nil), nil
}

// selectNames loads the tools named in list, separated by commas.
func (t *Tool) selectNames(list string, limit int) tools.Result {
	var want, over []tools.Tool
	var missingNames []string
	seen := map[string]bool{}
	for _, raw := range strings.Split(list, ",") {
		n := strings.Trim(strings.TrimSpace(raw), `"'`)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		tl, ok := t.reg.Lookup(n)
		switch {
		case !ok:
			missingNames = append(missingNames, n)
		case len(want) >= limit:
			over = append(over, tl)
		default:
			want = append(want, tl)
		}
	}
	if len(want) == 0 && len(missingNames) == 0 {
		return tools.Errorf("INVALID_TOOL_PARAMS", "No tool names after select:.")
	}
	return t.load(want, missingNames, over)
}

// load declares ts and describes them for the model.
func (t *Tool) load(ts []tools.Tool, missing []string, over []tools.Tool) tools.Result {
	names := make([]string, len(ts))
	for i, tl := range ts {
		names[i] = tl.Name()
	}
	if loaded := t.reg.Load(names...); len(loaded) > 0 && t.onLoad != nil {
		t.onLoad(loaded)
	}
	var b strings.Builder
	if len(ts) > 0 {
		b.WriteString("<functions>\n")
		for _, tl := range ts {
			b.WriteString("<function>" + declaration(tl) + "</function>\n")
		}
		b.WriteString("</functions>\nThese tools are now in your tool list: call them directly.")
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\n\nNot found: %s", strings.Join(missing, ", "))
	}
	if len(over) > 0 {
		var rest []string
		for _, tl := range over {
			rest = append(rest, tl.Name())
		}
		fmt.Fprintf(&b, "\n\nNot loaded (over max_results), select them in another call: %s", strings.Join(rest, ", "))
	}
	r := tools.Result{Output: strings.TrimSpace(b.String()), Display: fmt.Sprintf("loaded %d tool(s)", len(ts))}
	if len(ts) == 0 {
		r.IsError, r.ErrorType = true, "TOOL_NOT_REGISTERED"
	}
	return r
}

// declaration is tl's declaration as JSON, as providers receive it.
func declaration(tl tools.Tool) string {
	b, err := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}{tl.Name(), tl.Description(), tl.Schema()})
	if err != nil {
		return fmt.Sprintf(`{"name":%q}`, tl.Name())
	}
	return string(b)
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
