package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

type namedTool string

func (n namedTool) Name() string            { return string(n) }
func (n namedTool) Description() string     { return "tool " + string(n) }
func (n namedTool) Kind() Kind              { return KindOther }
func (n namedTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (n namedTool) Execute(context.Context, json.RawMessage, Output) (Result, error) {
	return Result{Output: string(n)}, nil
}

func declNames(r *Registry) []string {
	var out []string
	for _, d := range r.Decls() {
		out = append(out, d.Name)
	}
	return out
}

// Deferred tools are found by Lookup but not declared until loaded, and a
// loaded one is declared after every tool declared before: the list of
// declarations only grows at its end.
func TestRegistryDeferredTools(t *testing.T) {
	r := NewRegistry(namedTool("a"), namedTool("b"))
	r.Defer(namedTool("x"))
	r.Defer(namedTool("y"))
	r.Register(namedTool("c"))
	if got := declNames(r); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("decls = %v", got)
	}
	if _, ok := r.Lookup("x"); !ok {
		t.Error("a deferred tool is not found by Lookup")
	}
	if !r.IsDeferred("y") || r.IsDeferred("a") || r.IsDeferred("nope") {
		t.Error("IsDeferred is wrong")
	}
	var deferred []string
	for _, d := range r.Deferred() {
		deferred = append(deferred, d.Name())
	}
	if !slices.Equal(deferred, []string{"x", "y"}) {
		t.Errorf("Deferred = %v", deferred)
	}
	if got := r.Load("y", "nope", "a"); !slices.Equal(got, []string{"y"}) {
		t.Errorf("Load returned %v, want only the newly loaded", got)
	}
	if got := r.Load("y"); len(got) != 0 {
		t.Errorf("loading twice returned %v", got)
	}
	before := declNames(r)
	if !slices.Equal(before, []string{"a", "b", "c", "y"}) {
		t.Fatalf("decls after load = %v", before)
	}
	r.Load("x")
	if got := declNames(r); !slices.Equal(got[:len(before)], before) || got[len(got)-1] != "x" {
		t.Errorf("decls after a second load = %v: the earlier ones must stay in place", got)
	}
	if len(r.Deferred()) != 0 || r.IsDeferred("x") {
		t.Error("loaded tools are still deferred")
	}
	if got := r.OfferedNames(); !slices.Equal(got, []string{"a", "b", "c", "y", "x"}) {
		t.Errorf("OfferedNames = %v", got)
	}
}
