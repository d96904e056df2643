// Package loopdetect notices a model that goes in circles and says
// so before the next tool call runs.
//
// It owns the loop guards and their thresholds: the always-on tier
// (identical consecutive calls, shell inspection stagnation, a per-turn cap
// on tool calls) and the heuristic tier, off by default (repeated content,
// repeated thoughts, read-file churn, global repetition, A-B alternation).
// It must not stop anything itself, run tools, read history or know about
// providers: the client feeds it events and acts on the *Loop it returns.
//
// Every check is O(1) amortised: arguments are hashed once, and all state
// lives in fixed-size windows, so a round's snapshot (for Retry) is a plain
// struct copy.
package loopdetect

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strings"
)

// Thresholds. A guard trips on the call (or text unit) that reaches its
// threshold, before that call runs.
const (
	// IdenticalCalls trips on the 5th consecutive call with the same name
	// and canonical arguments: it stays below the server-side duplicate
	// call rejection of some providers, a 400 that kills the session, so
	// the client stops first and the session can be saved.
	IdenticalCalls = 5
	// ShellStagnation trips on the 8th run of the same inspection command
	// with no change in between (see Class).
	ShellStagnation = 8
	// MaxCallsPerTurn is the default hard cap: a turn may make 100 tool
	// calls; the 101st is refused.
	MaxCallsPerTurn = 100

	RepeatedContent  = 10 // the same sentence of visible text
	RepeatedThoughts = 3  // the same sentence of reasoning
	ReadChurn        = 8  // file reads among the last Window calls
	GlobalRepetition = 6  // the same call among the last Window calls
	AlternationCycle = 3  // A,B cycles in a row: A,B,A,B,A,B
	Window           = 15 // tool calls the heuristic call guards look back on
)

// Guard names the guard that tripped.
type Guard string

const (
	GuardIdenticalCalls   Guard = "identical_tool_calls"
	GuardShellStagnation  Guard = "shell_stagnation"
	GuardTurnCap          Guard = "turn_tool_call_cap"
	GuardRepeatedContent  Guard = "repeated_content"
	GuardRepeatedThoughts Guard = "repeated_thoughts"
	GuardReadChurn        Guard = "read_churn"
	GuardGlobalRepetition Guard = "global_repetition"
	GuardAlternation      Guard = "alternation"
)

// Heuristic reports whether g belongs to the tier that is off by default.
func (g Guard) Heuristic() bool {
	switch g {
	case GuardIdenticalCalls, GuardShellStagnation, GuardTurnCap:
		return false
	}
	return true
}

// Loop reports a tripped guard. It is also an error, so the client can
// end the turn with it.
type Loop struct {
	Guard Guard
	// Tool is the tool the tripping call named; empty for text guards.
	Tool string
	// Count is how many times the pattern was seen when the guard
	// tripped (calls in the turn, for GuardTurnCap).
	Count int
	// Message is a sentence for the user, starting "ply stopped:".
	Message string
}

func (l *Loop) Error() string { return l.Message }

// Options configures a Detector. The zero value is ply's default: the
// always-on tier only.
type Options struct {
	// Heuristics enables the heuristic tier. The setting
	// model.skipLoopDetection defaults to true, which means false here.
	Heuristics bool
	// MaxCallsPerTurn overrides the per-turn cap; 0 means
	// MaxCallsPerTurn.
	MaxCallsPerTurn int
	// Classify says what a tool call does; nil means DefaultClassify.
	// Wire it to the tool registry's kinds when tools beyond ply's own
	// are registered.
	Classify func(name, args string) Class
}

// call is what the detector remembers of one tool call.
type call struct {
	key   uint64 // name and canonical arguments
	name  string
	class Class
}

// inspection counts runs of one inspection command since the last change.
type inspection struct {
	key   uint64
	count int
	used  uint64 // clock of the last run, for eviction
}

// stagnationSlots bounds the inspection commands tracked at once. A
// command repeated eight times while sixteen others ran in between is
// spread out enough not to be a loop worth a hard stop.
const stagnationSlots = 16

// state is everything a round can change. It holds no pointers into
// shared memory (strings are immutable), so copying it is a snapshot.
type state struct {
	turnCalls int

	streak  int // consecutive calls with key last
	last    uint64
	hasLast bool

	inspected [stagnationSlots]inspection
	clock     uint64

	window  [Window]call // ring of the last calls
	calls   int          // calls ever pushed into window
	changed bool         // the turn used a tool that is not read-only

	content text
	thought text
}

// Detector watches one interaction. It is not safe for concurrent use:
// the client drives it from the goroutine that consumes the turn's events.
type Detector struct {
	opts Options
	seed maphash.Seed
	st   state
	snap state // st at the start of the current round

	canon canon // scratch for canonical arguments

	// extra is what ExtendTurnCap added to the per-turn cap.
	extra int

	// Partial sentences of the current round. A retry restarts the stream,
	// so they are dropped rather than snapshotted.
	contentTail, thoughtTail []byte
}

// New returns a Detector with opts.
func New(opts Options) *Detector {
	if opts.MaxCallsPerTurn <= 0 {
		opts.MaxCallsPerTurn = MaxCallsPerTurn
	}
	if opts.Classify == nil {
		opts.Classify = DefaultClassify
	}
	return &Detector{opts: opts, seed: maphash.MakeSeed()}
}

// Reset forgets everything: call it when the user sends a new query. A
// turn, for the cap, is one user interaction.
func (d *Detector) Reset() {
	d.extra = 0
	d.st = state{}
	d.snap = state{}
	d.contentTail = d.contentTail[:0]
	d.thoughtTail = d.thoughtTail[:0]
}

// TurnCap is the per-turn cap as configured: what ExtendTurnCap adds
// when the user goes on past it once.
func (d *Detector) TurnCap() int { return d.opts.MaxCallsPerTurn }

// turnCap is the per-turn cap with what the user allowed on top.
func (d *Detector) turnCap() int { return d.opts.MaxCallsPerTurn + d.extra }

// ExtendTurnCap allows n more tool calls in the current turn: the user
// chose to go on past the cap. Calls refused at the cap did not run and
// do not count. Reset (the next user query) ends the extension.
func (d *Detector) ExtendTurnCap(n int) {
	if n <= 0 {
		return
	}
	limit := d.turnCap()
	d.st.turnCalls = min(d.st.turnCalls, limit)
	d.snap.turnCalls = min(d.snap.turnCalls, limit)
	d.extra += n
}

// StartRound marks the start of a round-trip; Retry rolls back to here.
// A sentence left unfinished by the previous round is dropped: a round
// boundary ends it, and counting half sentences would only add noise.
func (d *Detector) StartRound() {
	d.st.content.fence = false
	d.st.thought.fence = false
	d.contentTail = d.contentTail[:0]
	d.thoughtTail = d.thoughtTail[:0]
	d.snap = d.st
}

// Retry rolls both tiers back to the last StartRound. A retried stream
// replays the calls and text of the failed attempt; without the rollback
// 3 calls, a retry and the same 3 calls would count as 6.
func (d *Detector) Retry() {
	d.st = d.snap
	d.contentTail = d.contentTail[:0]
	d.thoughtTail = d.thoughtTail[:0]
}

// CheckToolCall records a tool call the model asked for and reports a loop,
// or nil. Call it for every call, in order, before the call runs: the call
// that trips a guard must not run, and neither should the rest of the turn.
func (d *Detector) CheckToolCall(name, args string) *Loop {
	st := &d.st
	st.turnCalls++
	if limit := d.turnCap(); st.turnCalls > limit {
		// Refused calls are not recorded: the turn is over.
		return &Loop{Guard: GuardTurnCap, Tool: name, Count: st.turnCalls,
			Message: fmt.Sprintf("ply stopped: the model asked for more than %d tool calls in one turn", limit)}
	}

	var h maphash.Hash
	h.SetSeed(d.seed)
	h.WriteString(name)
	h.WriteByte(0)
	h.Write(d.canon.form(args))
	c := call{key: h.Sum64(), name: name, class: d.opts.Classify(name, args)}

	if st.hasLast && c.key == st.last {
		st.streak++
	} else {
		st.streak = 1
	}
	st.last, st.hasLast = c.key, true

	var loop *Loop
	if st.streak >= IdenticalCalls {
		loop = &Loop{Guard: GuardIdenticalCalls, Tool: name, Count: st.streak,
			Message: fmt.Sprintf("ply stopped: the model called %s with the same arguments %d times in a row", name, st.streak)}
	}
	if n, cmd := d.inspect(c, args); n >= ShellStagnation && loop == nil {
		loop = &Loop{Guard: GuardShellStagnation, Tool: name, Count: n,
			Message: fmt.Sprintf("ply stopped: the model ran %q %d times with no change in between", clip(cmd, 60), n)}
	}

	if c.class == ClassChange {
		st.changed = true
	}
	st.window[st.calls%Window] = c
	st.calls++
	if loop != nil || !d.opts.Heuristics {
		return loop
	}
	return d.heuristicCalls(c)
}

// inspect updates shell stagnation for c and returns how often its command
// ran since the last change.
func (d *Detector) inspect(c call, args string) (int, string) {
	st := &d.st
	switch c.class {
	case ClassChange:
		st.inspected = [stagnationSlots]inspection{}
		return 0, ""
	case ClassInspect:
	default:
		return 0, "" // reading files changes nothing and inspects nothing
	}
	// Key by the command alone: a model varies a "description" argument
	// while running the same command.
	var a struct {
		Command string `json:"command"`
	}
	if json.Unmarshal([]byte(args), &a) != nil || a.Command == "" {
		a.Command = string(d.canon.form(args))
	}
	command := strings.Join(strings.Fields(a.Command), " ")
	key := maphash.String(d.seed, command)
	st.clock++
	victim := -1 // an empty slot, else the least recently used
	for i := range st.inspected {
		s := &st.inspected[i]
		if s.count > 0 && s.key == key {
			s.count++
			s.used = st.clock
			return s.count, command
		}
		switch {
		case victim < 0:
			victim = i
		case st.inspected[victim].count == 0:
		case s.count == 0 || s.used < st.inspected[victim].used:
			victim = i
		}
	}
	st.inspected[victim] = inspection{key: key, count: 1, used: st.clock}
	return 1, command
}

// heuristicCalls runs the call guards of the heuristic tier on the window,
// which already holds c.
func (d *Detector) heuristicCalls(c call) *Loop {
	st := &d.st
	n := min(st.calls, Window)
	reads, same := 0, 0
	for i := range n {
		w := &st.window[i]
		if w.class == ClassReadFile {
			reads++
		}
		if w.key == c.key {
			same++
		}
	}
	// Cold start: a turn that has only read so far is exploring, and
	// reading many files is what exploring looks like.
	if st.changed && c.class == ClassReadFile && reads >= ReadChurn {
		return &Loop{Guard: GuardReadChurn, Tool: c.name, Count: reads,
			Message: fmt.Sprintf("ply stopped: the model read files %d times in its last %d tool calls", reads, n)}
	}
	if same >= GlobalRepetition {
		return &Loop{Guard: GuardGlobalRepetition, Tool: c.name, Count: same,
			Message: fmt.Sprintf("ply stopped: the model called %s with the same arguments %d times in its last %d tool calls", c.name, same, n)}
	}
	if cycle := 2 * AlternationCycle; st.calls >= cycle {
		at := func(back int) *call { return &st.window[(st.calls-1-back)%Window] }
		a, b := at(1), at(0)
		alternating := a.key != b.key
		for back := 2; alternating && back < cycle; back++ {
			alternating = at(back).key == at(back%2).key
		}
		if alternating {
			return &Loop{Guard: GuardAlternation, Tool: c.name, Count: AlternationCycle,
				Message: fmt.Sprintf("ply stopped: the model alternated between %s and %s %d times without progress", a.name, b.name, AlternationCycle)}
		}
	}
	return nil
}

// clip shortens s for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
