package ide

import (
	"context"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// Approver returns next with the editor's diff view beside it: while
// connected, a call that writes one file (edit, write_file) is also shown
// in the editor as a diff, and the first answer, the editor's or next's,
// decides; the other is withdrawn. Accepting in the editor approves the
// call once, with the text the user left in the diff view when they
// changed it; rejecting or closing the view denies it. Any other call, or
// any call while the editor cannot show diffs, goes to next alone. A nil
// next stays nil: where no one can be asked, no one is.
func (c *Client) Approver(next scheduler.Approver) scheduler.Approver {
	if next == nil || c == nil {
		return next
	}
	return &diffApprover{c: c, next: next}
}

type diffApprover struct {
	c    *Client
	next scheduler.Approver
}

// answer is one side's answer.
type answer struct {
	d      scheduler.Decision
	err    error
	editor bool
	gone   bool // the editor gave no answer
}

func (a *diffApprover) Approve(ctx context.Context, call *scheduler.Call) (scheduler.Decision, error) {
	pr, ok := call.Tool.(tools.Proposer)
	if !ok || !a.c.Diffing() {
		return a.next.Approve(ctx, call)
	}
	p, ok := pr.Propose(ctx, call.Params)
	if !ok {
		return a.next.Approve(ctx, call)
	}
	both, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan answer, 2)
	go func() {
		d, err := a.next.Approve(both, call)
		answers <- answer{d: d, err: err}
	}()
	go func() {
		r := a.c.OpenDiff(both, p.Path, p.After)
		answers <- a.decide(r, pr, call, p)
	}()
	var first *answer
	for range 2 {
		r := <-answers
		if first == nil && !r.gone {
			first = &r
			cancel() // withdraw the other side's question
		}
	}
	// next never gives up without an answer or an error, so first is set.
	return first.d, first.err
}

// decide turns the editor's answer into a decision.
func (a *diffApprover) decide(r DiffResult, pr tools.Proposer, call *scheduler.Call, p tools.Proposal) answer {
	switch r.Outcome {
	case DiffAccepted:
		d := scheduler.Decision{Outcome: scheduler.OutcomeAllowOnce}
		if r.HasContent && r.Content != p.After {
			args, err := pr.WithContent(call.Params, p, r.Content)
			if err != nil {
				// The user's version cannot be applied: refused with the
				// reason, never silently replaced by the model's.
				return answer{editor: true, d: scheduler.Decision{Outcome: scheduler.OutcomeDeny,
					Reason: "The user changed the proposed text in the editor's diff view, but it could not be applied: " + err.Error()}}
			}
			d.UpdatedInput, d.RewrittenBy = string(args), "The editor's diff view"
		}
		return answer{editor: true, d: d}
	case DiffRejected:
		return answer{editor: true, d: scheduler.Decision{Outcome: scheduler.OutcomeDeny, Reason: "rejected in the editor's diff view"}}
	}
	return answer{editor: true, gone: true}
}
