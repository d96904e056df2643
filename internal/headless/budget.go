package headless

import (
	"context"
	"fmt"
	"sync"
)

// budget counts the rounds and tool calls of a run and of every subagent
// it starts, against the caps the run was given (--max-session-turns,
// --max-tool-calls): a subagent's work is the session's work. The first
// cap reached, in whichever loop, ends them all.
type budget struct {
	maxTurns, maxCalls int

	mu           sync.Mutex
	turns, calls int
	over         *capReached
}

// capReached is the cap a loop ran into.
type capReached struct {
	subtype string
	code    int
	msg     string
}

type budgetKey struct{}

// budgetFor returns the budget of the run whose tools started ctx's
// work, or a new one for cfg's caps when there is none.
func budgetFor(ctx context.Context, cfg Config) *budget {
	if b, ok := ctx.Value(budgetKey{}).(*budget); ok {
		return b
	}
	return &budget{maxTurns: cfg.MaxSessionTurns, maxCalls: cfg.MaxToolCalls}
}

// turn counts one round, or reports the cap it would pass.
func (b *budget) turn() *capReached {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over != nil {
		return b.over
	}
	if b.maxTurns > 0 && b.turns >= b.maxTurns {
		b.over = &capReached{SubtypeMaxTurns, ExitTurnLimit,
			fmt.Sprintf("reached the session turn limit (--max-session-turns %d), subagents' turns included", b.maxTurns)}
		return b.over
	}
	b.turns++
	return nil
}

// toolCalls counts n calls, or reports the cap they would pass.
func (b *budget) toolCalls(n int) *capReached {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over != nil {
		return b.over
	}
	if b.maxCalls > 0 && b.calls+n > b.maxCalls {
		b.over = &capReached{SubtypeMaxToolCalls, ExitBudget,
			fmt.Sprintf("the model asked for %d more tool calls, past the limit of %d (--max-tool-calls); %d ran, subagents' included",
				n, b.maxCalls, b.calls)}
		return b.over
	}
	b.calls += n
	return nil
}

// reached returns the cap some loop ran into, or nil.
func (b *budget) reached() *capReached {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.over
}
