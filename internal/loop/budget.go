package loop

import (
	"context"
	"fmt"
	"sync"
)

// budget counts a loop's rounds and tool calls against its caps and, up
// the chain, against the caps of the loop whose tools started it: a
// subagent's work is the session's work. The first cap reached, in any
// loop of the chain, ends every loop below the loop that holds it.
type budget struct {
	parent             *budget
	maxTurns, maxCalls int

	mu           sync.Mutex
	turns, calls int
	over         *Result
}

type budgetKey struct{}

// newBudget returns the budget for a loop with caps, started under ctx.
func newBudget(ctx context.Context, caps Caps) *budget {
	parent, _ := ctx.Value(budgetKey{}).(*budget)
	return &budget{parent: parent, maxTurns: caps.MaxTurns, maxCalls: caps.MaxToolCalls}
}

// withBudget is ctx for the tools of the loop that holds b.
func withBudget(ctx context.Context, b *budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// turn counts one round in b and every budget above it, or reports the
// cap it would pass.
func (b *budget) turn() *Result {
	return b.count(func(a *budget, own bool) *Result {
		if a.maxTurns > 0 && a.turns >= a.maxTurns {
			msg := fmt.Sprintf("reached the session turn limit (--max-session-turns %d)", a.maxTurns)
			if !own {
				msg += ", subagents' turns included"
			}
			return &Result{Stop: MaxTurns, Message: msg}
		}
		return nil
	}, func(a *budget) { a.turns++ })
}

// toolCalls counts n calls in b and every budget above it, or reports the
// cap they would pass.
func (b *budget) toolCalls(n int) *Result {
	return b.count(func(a *budget, own bool) *Result {
		if a.maxCalls > 0 && a.calls+n > a.maxCalls {
			msg := fmt.Sprintf("the model asked for %d more tool calls, past the limit of %d (--max-tool-calls); %d ran",
				n, a.maxCalls, a.calls)
			if !own {
				msg += ", subagents' included"
			}
			return &Result{Stop: MaxToolCalls, Message: msg}
		}
		return nil
	}, func(a *budget) { a.calls += n })
}

// count checks every budget of the chain, and adds to each only if none
// is over.
func (b *budget) count(check func(a *budget, own bool) *Result, add func(a *budget)) *Result {
	chain := b.chain()
	for _, a := range chain {
		a.mu.Lock()
	}
	defer func() {
		for _, a := range chain {
			a.mu.Unlock()
		}
	}()
	for _, a := range chain {
		if a.over != nil {
			return a.over
		}
	}
	for i, a := range chain {
		if r := check(a, i == 0); r != nil {
			a.over = r
			return r
		}
	}
	for _, a := range chain {
		add(a)
	}
	return nil
}

// chain is b and the budgets above it, nearest first: locks are always
// taken in that order.
func (b *budget) chain() []*budget {
	var c []*budget
	for a := b; a != nil; a = a.parent {
		c = append(c, a)
	}
	return c
}

// reached returns the cap some loop of the chain ran into, or nil.
func (b *budget) reached() *Result {
	for a := b; a != nil; a = a.parent {
		a.mu.Lock()
		over := a.over
		a.mu.Unlock()
		if over != nil {
			return over
		}
	}
	return nil
}
