package scheduler

import (
	"context"
	"fmt"

	"github.com/plyhq/ply/internal/tools"
)

// precheckFailed runs the tool's pre-check (tools.Prechecker) for a call
// about to be put to the user, and ends the call with the tool's error
// when it would fail: no one should approve an edit whose old_string
// matches nothing. It reports whether the call ended. A panic in the
// check ends nothing: the call is asked about as usual.
func precheckFailed(ctx context.Context, c *Call) (failed bool) {
	pc, ok := c.Tool.(tools.Prechecker)
	if !ok {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			failed = false
		}
	}()
	r := pc.Precheck(ctx, c.Params)
	if r == nil {
		return false
	}
	if !r.IsError {
		// A pre-check only fails calls; anything else is a bug in the tool.
		r = &tools.Result{IsError: true, ErrorType: ErrorTypeExecution, Output: fmt.Sprintf("Tool %q's pre-check returned a result that is not an error: %s", c.Name, r.Output)}
	}
	return c.finishResult(*r)
}
