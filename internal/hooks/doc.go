// Package hooks runs the user's hooks: shell commands, or URLs to POST to,
// configured in the settings under "hooks", that ply runs at fixed points
// of a session (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse,
// PostToolUseFailure, PostToolBatch, PermissionRequest, Notification,
// SubagentStart, SubagentStop, PreCompact, PostCompact, Stop, SessionEnd).
// A command hook gets the event as one JSON object on stdin and answers
// with its exit code and, optionally, a JSON decision on stdout; an http
// hook gets the same object as a POST body and answers with the same JSON
// in a 2xx response. Both follow the shapes Claude Code defines, so hooks
// written for Claude Code work unchanged.
//
// What it owns: the configuration format (both the nested and the flat
// form), matching hooks to an event, running the processes (in parallel,
// each in its own process group, killed as a group at its timeout),
// reading their answers, combining several answers into one Decision, the
// adapter that gives the scheduler its ToolHooks, and the wrapper that
// puts PermissionRequest and Notification in front of an Approver.
//
// What it must not touch: the conversation, the model, the UI and the
// scheduler's state. It reports; the caller acts. A hook that fails in any
// way (a timeout, a crash, a non-zero exit other than 2, unreadable
// output) yields a Warning, delivered to Options.OnWarning, and counts as
// no decision: a broken hook must never crash ply or block its work.
package hooks
