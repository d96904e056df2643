// Package scheduler runs the tool calls of one model turn: it turns each
// requested call into a Call that moves through a small state machine
// (validating → awaiting_approval → scheduled → executing → success, error
// or cancelled), validates arguments against the tool's JSON Schema, asks a
// Policy and, when needed, an Approver whether the call may run, cuts the
// calls into batches (consecutive concurrency-safe calls run in parallel,
// every other call runs alone), executes them, and converts every outcome
// into the llm.FunctionResponse the model receives, in call order.
//
// What it owns: call states, validation and its messages to the model, the
// approval flow, batching and concurrency, the conversion of tool results
// (never an empty output), and the batch output budget.
//
// It also offers three hook points (WithHooks, ToolHooks): PreToolUse after
// validation and before the policy, PostToolUse after each executed call,
// PostToolBatch once the batch is terminal. How hooks are configured and
// run (as processes) belongs to the hooks package, not here.
//
// What it must not touch: HTTP and providers, the UI, and the conversation
// history. It neither reads nor appends messages; the caller sends the
// responses back. A UI observes progress through the OnUpdate hook and
// asks the user through the Approver interface, both owned here and small.
//
// A tool's failure is a result for the model, never a Go error of Run and
// never a reason to run anything again: panics are recovered into error
// results, and Run returns every call, terminal, in request order.
package scheduler
