package hooks

import (
	"context"
	"sync"

	"github.com/plyhq/ply/internal/scheduler"
)

// Approver wraps a, the entry layer's way of asking the user, with the
// PermissionRequest and Notification hooks: before a call is put to the
// user, the PermissionRequest hooks may decide it in the user's place;
// when they do not, the user is asked and, meanwhile, the Notification
// hooks are told ("permission_prompt"). Without an approver (a headless
// run, where nobody could be asked) there is no request and nothing is
// fired. It returns a itself when neither event has hooks.
//
// A PermissionRequest "allow" with an updatedInput runs the call with the
// new arguments; the scheduler validates them and checks them against
// the permission policy again (see scheduler.Decision.UpdatedInput).
func Approver(r *Runner, a scheduler.Approver) scheduler.Approver {
	if a == nil || (!r.Has(PermissionRequest) && !r.Has(Notification)) {
		return a
	}
	return &hookApprover{r: r, a: a}
}

type hookApprover struct {
	r *Runner
	a scheduler.Approver
}

func (h *hookApprover) Approve(ctx context.Context, c *scheduler.Call) (scheduler.Decision, error) {
	if h.r.Has(PermissionRequest) {
		ans, err := h.r.PermissionRequest(ctx, c.Name, c.CallID, toolInput(c))
		if err != nil {
			return scheduler.Decision{}, err
		}
		switch {
		case ans == nil:
		case ans.Deny && ans.Interrupt:
			return scheduler.Decision{Outcome: scheduler.OutcomeCancel, Reason: ans.Message}, nil
		case ans.Deny:
			return scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: ans.Message}, nil
		default:
			return scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce, UpdatedInput: string(ans.UpdatedInput), RewrittenBy: "A PermissionRequest hook"}, nil
		}
	}
	if !h.r.Has(Notification) {
		return h.a.Approve(ctx, c)
	}
	// The notification runs beside the dialog, and is waited for, so
	// that no hook outlives the call that started it.
	var wg sync.WaitGroup
	wg.Go(func() {
		h.r.Notify(ctx, NotifyPermission, "Permission needed", "ply needs your permission to use "+c.Name)
	})
	d, err := h.a.Approve(ctx, c)
	wg.Wait()
	return d, err
}
