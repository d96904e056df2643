// Package core owns one session's layers: the tools, the policy, the
// hooks, the chat and its client, the transcript and its recorder, the
// subagents, the background work and the checkpoints. New builds them
// from a plain Config of resolved values; an entry layer (headless, the
// SDK, the interactive UI, ACP) adds its approver and update callback to
// the scheduler options and runs the loop.
//
// It does not parse flags, print to the terminal or know an entry
// layer's protocol: what it has to say goes to the writers it is given.
package core
