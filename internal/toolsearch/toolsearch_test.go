package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

type fakeTool struct {
	name, desc string
	schema     string
	ran        *int
}

func (f fakeTool) Name() string            { return f.name }
func (f fakeTool) Description() string     { return f.desc }
func (f fakeTool) Kind() tools.Kind        { return tools.KindOther }
func (f fakeTool) Schema() json.RawMessage { return json.RawMessage(f.schema) }
func (f fakeTool) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	if f.ran != nil {
		*f.ran++
	}
	return tools.Result{Output: "ran " + f.name}, nil
}

const issueSchema = `{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`

func setup(t *testing.T) (*tools.Registry, *Tool, *[][]string, *int) {
	t.Helper()
	ran := 0
	reg := tools.NewRegistry(fakeTool{name: "read_file", desc: "Reads a file.", schema: `{"type":"object"}`})
	var loads [][]string
	onLoad := func(names []string) { loads = append(loads, names) }
	for _, ft := range []fakeTool{
		{name: "mcp__gh__create_issue", desc: "Create an issue in a repository.", schema: issueSchema, ran: &ran},
		{name: "mcp__gh__list_issues", desc: "List the issues of a repository.", schema: `{"type":"object"}`},
		{name: "mcp__db__query", desc: "Run a SQL query against the database.", schema: `{"type":"object","properties":{"sql":{"type":"string"}}}`},
		{name: "mcp__db__delete_row", desc: "Delete one row.", schema: `{"type":"object"}`},
	} {
		Defer(reg, ft, onLoad)
	}
	ts := New(reg, onLoad)
	reg.Register(ts)
	return reg, ts, &loads, &ran
}

func names(reg *tools.Registry) []string {
	var out []string
	for _, d := range reg.Decls() {
		out = append(out, d.Name)
	}
	return out
}

func run(t *testing.T, ts *Tool, args string) tools.Result {
	t.Helper()
	r, err := ts.Execute(context.Background(), json.RawMessage(args), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestToolSearchLoadsWhatItFinds(t *testing.T) {
	reg, ts, loads, _ := setup(t)
	if got := names(reg); !slices.Equal(got, []string{"read_file", Name}) {
		t.Fatalf("declared at start: %v", got)
	}
	for _, n := range []string{"mcp__gh__create_issue", "mcp__db__query"} {
		if !strings.Contains(ts.Description(), n) {
			t.Errorf("the description does not name %s", n)
		}
	}
	if strings.Contains(ts.Description(), issueSchema) {
		t.Error("the description carries a deferred schema")
	}

	r := run(t, ts, `{"query":"issue repository"}`)
	if r.IsError || !strings.Contains(r.Output, "<functions>") || !strings.Contains(r.Output, `"required":["title"]`) {
		t.Fatalf("keyword search: %+v", r)
	}
	got := names(reg)
	if !slices.Equal(got[:2], []string{"read_file", Name}) || !slices.Contains(got, "mcp__gh__create_issue") || !slices.Contains(got, "mcp__gh__list_issues") || slices.Contains(got, "mcp__db__query") {
		t.Errorf("declared after the search: %v", got)
	}
	if len(*loads) != 1 {
		t.Errorf("onLoad calls = %v", *loads)
	}

	before := names(reg)
	r = run(t, ts, `{"query":"select:mcp__db__query, nope"}`)
	if r.IsError || !strings.Contains(r.Output, `"sql"`) || !strings.Contains(r.Output, "Not found: nope") {
		t.Errorf("select: %+v", r)
	}
	after := names(reg)
	if !slices.Equal(after[:len(before)], before) || after[len(after)-1] != "mcp__db__query" {
		t.Errorf("the list did not grow at its end: %v then %v", before, after)
	}

	r = run(t, ts, `{"query":"+delete"}`)
	if !strings.Contains(r.Output, "mcp__db__delete_row") {
		t.Errorf("+delete: %+v", r)
	}
	r = run(t, ts, `{"query":"kangaroo"}`)
	if r.IsError || !strings.Contains(r.Output, "No deferred tools match") {
		t.Errorf("no match: %+v", r)
	}
	r = run(t, ts, `{"query":"  "}`)
	if !r.IsError {
		t.Errorf("empty query: %+v", r)
	}
}

func TestToolSearchMaxResults(t *testing.T) {
	reg := tools.NewRegistry()
	for i := range 30 {
		Defer(reg, fakeTool{name: fmt.Sprintf("mcp__s__tool%02d", i), desc: "A widget tool.", schema: `{"type":"object"}`}, nil)
	}
	ts := New(reg, nil)
	r := run(t, ts, `{"query":"widget"}`)
	if n := strings.Count(r.Output, "<function>"); n != DefaultMaxResults {
		t.Errorf("default results = %d", n)
	}
	r = run(t, ts, `{"query":"widget","max_results":7}`)
	if n := strings.Count(r.Output, "<function>"); n != 7 {
		t.Errorf("max_results 7 gave %d", n)
	}
}

// A deferred tool called before it is loaded does not run: it is loaded,
// and the model is told to call it again with the schema it now has.
func TestCallingAnUnloadedTool(t *testing.T) {
	reg, _, loads, ran := setup(t)
	tl, _ := reg.Lookup("mcp__gh__create_issue")
	if string(tl.Schema()) == issueSchema {
		t.Error("an unloaded tool validates against its real schema, so a guess fails before the clear error")
	}
	pc, ok := tl.(tools.Prechecker)
	if !ok {
		t.Fatal("the deferred tool has no pre-check: the user would be asked about a call that cannot run")
	}
	res := pc.Precheck(context.Background(), json.RawMessage(`{}`))
	if res == nil || !res.IsError || !strings.Contains(res.Output, "tool_search") || !strings.Contains(res.Output, `"required":["title"]`) {
		t.Fatalf("precheck = %+v", res)
	}
	if *ran != 0 {
		t.Error("the tool ran")
	}
	if reg.IsDeferred("mcp__gh__create_issue") || len(*loads) != 1 {
		t.Errorf("not loaded by the failed call: %v", *loads)
	}
	if string(tl.Schema()) != issueSchema {
		t.Error("a loaded tool does not have its own schema")
	}
	r, err := tl.Execute(context.Background(), json.RawMessage(`{"title":"x"}`), nil)
	if err != nil || r.Output != "ran mcp__gh__create_issue" || *ran != 1 {
		t.Errorf("the call after loading: %+v %v", r, err)
	}

	// Execute guards too (an allowed call is not pre-checked).
	tl2, _ := reg.Lookup("mcp__db__query")
	r, _ = tl2.Execute(context.Background(), json.RawMessage(`{}`), nil)
	if !r.IsError || reg.IsDeferred("mcp__db__query") {
		t.Errorf("executing an unloaded tool: %+v", r)
	}
}

func TestShouldDefer(t *testing.T) {
	small := []tools.Tool{fakeTool{name: "a", schema: `{}`}}
	if ShouldDefer(small, 128000, Threshold{}) {
		t.Error("one small tool deferred")
	}
	var many []tools.Tool
	for i := range 41 {
		many = append(many, fakeTool{name: fmt.Sprint(i), schema: `{}`})
	}
	if !ShouldDefer(many, 128000, Threshold{}) || ShouldDefer(many[:40], 128000, Threshold{}) {
		t.Error("the 40-tool default is wrong")
	}
	big := []tools.Tool{fakeTool{name: "big", schema: `{"d":"` + strings.Repeat("x", 4*1300) + `"}`}}
	if !ShouldDefer(big, 10000, Threshold{}) || ShouldDefer(big, 100000, Threshold{}) {
		t.Error("the 10% default is wrong")
	}
	f := false
	if ShouldDefer(many, 128000, Threshold{Enabled: &f}) {
		t.Error("enabled false still defers")
	}
	if !ShouldDefer(small, 128000, Threshold{Percent: ptr(0)}) {
		t.Error("threshold 0 does not always defer")
	}
	if ShouldDefer(nil, 128000, Threshold{Percent: ptr(0)}) {
		t.Error("no tools, yet deferred")
	}
}

func ptr(n int) *int { return &n }

func FuzzQuery(f *testing.F) {
	for _, s := range []string{"select:a,b", "+must word", "issue", "", "select:", "+", `select:"x"`} {
		f.Add(s)
	}
	reg := tools.NewRegistry()
	Defer(reg, fakeTool{name: "mcp__a__b", desc: "d", schema: `{}`}, nil)
	ts := New(reg, nil)
	f.Fuzz(func(t *testing.T, q string) {
		args, _ := json.Marshal(map[string]any{"query": q})
		if _, err := ts.Execute(context.Background(), args, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// parallelTool answers for its own concurrency, as an MCP tool the server
// marks read-only does.
type parallelTool struct{ fakeTool }

func (parallelTool) ConcurrencySafe(json.RawMessage) bool { return true }

// A deferred tool keeps its own answer about running in parallel.
func TestDeferredKeepsConcurrencySafety(t *testing.T) {
	reg := tools.NewRegistry()
	Defer(reg, parallelTool{fakeTool{name: "mcp__kb__peek", schema: `{"type":"object"}`}}, nil)
	Defer(reg, fakeTool{name: "mcp__kb__poke", schema: `{"type":"object"}`}, nil)
	peek, _ := reg.Lookup("mcp__kb__peek")
	if cs, ok := peek.(tools.ConcurrencySafe); !ok || !cs.ConcurrencySafe(nil) {
		t.Error("a deferred tool that may run in parallel lost that")
	}
	poke, _ := reg.Lookup("mcp__kb__poke")
	if cs, ok := poke.(tools.ConcurrencySafe); ok && cs.ConcurrencySafe(nil) {
		t.Error("a deferred tool of kind other may run in parallel")
	}
}
