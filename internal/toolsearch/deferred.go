package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/plyhq/ply/internal/tools"
)

// anyObject is what an unloaded tool accepts, so that every call to it
// reaches the check that explains what to do.
var anyObject = json.RawMessage(`{"type":"object"}`)

// Defer registers t in reg as a deferred tool. A call to it before it is
// loaded does not run: the call loads it (onLoad is told, as for
// tool_search) and fails with its declaration and the advice to call it
// again, which costs the model no more rounds than searching first.
func Defer(reg *tools.Registry, t tools.Tool, onLoad func([]string)) {
	reg.Defer(&deferred{Tool: t, reg: reg, onLoad: onLoad})
}

// deferred is a deferred tool; once loaded it is the tool itself.
type deferred struct {
	tools.Tool
	reg    *tools.Registry
	onLoad func([]string)
}

var (
	_ tools.Prechecker      = (*deferred)(nil)
	_ tools.ConcurrencySafe = (*deferred)(nil)
)

// ConcurrencySafe is the tool's own answer when it gives one, otherwise
// its kind's, as the scheduler would decide for the tool itself.
func (d *deferred) ConcurrencySafe(args json.RawMessage) bool {
	if cs, ok := d.Tool.(tools.ConcurrencySafe); ok {
		return cs.ConcurrencySafe(args)
	}
	return d.Tool.Kind().ReadOnly()
}

func (d *deferred) Schema() json.RawMessage {
	if d.reg.IsDeferred(d.Name()) {
		return anyObject
	}
	return d.Tool.Schema()
}

// Precheck fails a call made before the tool was loaded, before anyone
// is asked to approve it. Unlike other pre-checks it changes something:
// it loads the tool, which is what the failure asks the model to use.
func (d *deferred) Precheck(ctx context.Context, args json.RawMessage) *tools.Result {
	if r := d.notLoaded(); r != nil {
		return r
	}
	if pc, ok := d.Tool.(tools.Prechecker); ok {
		return pc.Precheck(ctx, args)
	}
	return nil
}

func (d *deferred) Execute(ctx context.Context, args json.RawMessage, out tools.Output) (tools.Result, error) {
	if r := d.notLoaded(); r != nil {
		return *r, nil
	}
	return d.Tool.Execute(ctx, args, out)
}

// notLoaded loads the tool and explains, when it was not loaded yet.
func (d *deferred) notLoaded() *tools.Result {
	if len(d.reg.Load(d.Name())) == 0 {
		return nil
	}
	if d.onLoad != nil {
		d.onLoad([]string{d.Name()})
	}
	r := tools.Errorf("TOOL_NOT_LOADED",
		"%s was not run: it is a deferred tool and its declaration had not been loaded (use %s to find and load deferred tools before calling them). It is loaded now:\n<functions>\n<function>%s</function>\n</functions>\nCall it again with arguments that match this schema.",
		d.Name(), Name, declaration(d.Tool))
	return &r
}

// String names the tool, for logs.
func (d *deferred) String() string { return fmt.Sprintf("deferred(%s)", d.Name()) }

// Deferred returns the tool t defers, when t is one Defer registered.
func Deferred(t tools.Tool) (tools.Tool, bool) {
	if d, ok := t.(*deferred); ok {
		return d.Tool, true
	}
	return nil, false
}
