package core

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/toolsearch"
)

type stubTool string

func (s stubTool) Name() string        { return string(s) }
func (s stubTool) Description() string { return "stub " + string(s) }
func (s stubTool) Kind() tools.Kind    { return tools.KindRead }
func (s stubTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
}
func (s stubTool) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	return tools.Result{Output: string(s)}, nil
}

// A subagent gets the parent's deferred tools deferred in its own
// registry, behind its own tool_search: loading one there does not load it
// in the parent.
func TestCopyToolsKeepsDeferral(t *testing.T) {
	parent := tools.NewRegistry(stubTool("read_file"))
	toolsearch.Defer(parent, stubTool("mcp__s__a"), nil)
	toolsearch.Defer(parent, stubTool("mcp__s__b"), nil)
	parent.Register(toolsearch.New(parent, nil))

	child := tools.NewRegistry()
	loads := 0
	copyTools(child, parent, parent.Names(), func([]string) { loads++ })
	var declared []string
	for _, d := range child.Decls() {
		declared = append(declared, d.Name)
	}
	if !slices.Equal(declared, []string{"read_file", toolsearch.Name}) {
		t.Fatalf("child declares %v", declared)
	}
	ts, _ := child.Lookup(toolsearch.Name)
	if _, err := ts.Execute(context.Background(), json.RawMessage(`{"query":"select:mcp__s__a"}`), nil); err != nil {
		t.Fatal(err)
	}
	if child.IsDeferred("mcp__s__a") || !parent.IsDeferred("mcp__s__a") || loads != 1 {
		t.Errorf("child loaded %v, parent still deferred %v, loads %d", !child.IsDeferred("mcp__s__a"), parent.IsDeferred("mcp__s__a"), loads)
	}
	a, _ := child.Lookup("mcp__s__a")
	if string(a.Schema()) != string(stubTool("").Schema()) {
		t.Errorf("the loaded tool's schema in the child = %s", a.Schema())
	}
}
