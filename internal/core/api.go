package core

import (
	"context"
	"errors"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/schedule"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/tools"
)

// What the entry layers reach: the session's layers and its state.

func (c *Session) Workspace() *tools.Workspace    { return c.ws }
func (c *Session) Registry() *tools.Registry      { return c.reg }
func (c *Session) Policy() *permission.Policy     { return c.policy }
func (c *Session) Chat() *chat.Chat               { return c.chat }
func (c *Session) Hooks() *hooks.Runner           { return c.hooks }
func (c *Session) Client() *client.Client         { return c.client }
func (c *Session) Schedules() *schedule.Schedules { return c.sched }

// Loops is the client's loop detector; the TUI raises its per-turn cap
// when the user says go on.
func (c *Session) Loops() *loopdetect.Detector { return c.loops }

// Inbox holds the rounds no user typed (background work), which the
// entry drains.
func (c *Session) Inbox() *inbox.Inbox { return c.inbox }

// MCPServers are the MCP servers' states, for the init message.
func (c *Session) MCPServers() []MCPServer { return c.mcpStates() }

// SchedulerOptions are the options every entry's scheduler starts from.
func (c *Session) SchedulerOptions() []scheduler.Option { return c.schedOps }

// Recorder is the session's loop recorder.
func (c *Session) Recorder() loop.Recorder { return c.recorder() }

// RecordToolState writes a finished call's state to the transcript; each
// entry layer calls it from its scheduler update callback.
func (c *Session) RecordToolState(call *scheduler.Call) { c.recordToolState(call) }

// AgentNames lists the subagents the agent tool offers, if it is offered.
func (c *Session) AgentNames() []string { return c.agentNames() }

// SkillNames lists the skills when the model is offered the skill tool.
func (c *Session) SkillNames() []string { return c.skillNames() }

// Runner runs sched's tool calls for a loop, with a checkpoint before
// each batch that may write when checkpoints is set.
func (c *Session) Runner(sched *scheduler.Scheduler, checkpoints bool) *Runner {
	r := &Runner{sched: sched, chat: c.chat, base: c.cp}
	if checkpoints {
		r.cp = c.cp
	}
	return r
}

// SetSubagentApprover sets who approves the subagents' calls; their file
// changes open in a connected editor's diff view too.
func (c *Session) SetSubagentApprover(a scheduler.Approver) { c.agents.approver = c.ide.Approver(a) }

// SetSubagentLoop sets the loop the subagents run.
func (c *Session) SetSubagentLoop(l NestedLoop) { c.agents.nested = l }

// OnUserQuery runs as each user prompt is sent, whatever the entry
// layer: the prompt hooks, the end of the last turn's skills, the
// checkpoint. The client calls it; it returns the parts to send.
func (c *Session) OnUserQuery(ctx context.Context, parts []llm.Part) ([]llm.Part, error) {
	return c.onUserQuery(ctx, parts)
}

// The session opened: its id, the history it started from, its first
// round and its transcript.
func (c *Session) ID() string                           { return c.sess.id }
func (c *Session) History() []llm.Message               { return c.sess.history }
func (c *Session) First() ([]llm.Part, client.SendType) { return c.sess.first, c.sess.firstType }
func (c *Session) Transcript() *session.Writer          { return c.sess.w }

// Switch makes the saved session id the current one (/resume) and
// returns its history.
func (c *Session) Switch(id string) ([]llm.Message, error) {
	return switchSession(c.cfg, c, c.ws.Root(), id, c.log)
}

// CloseTranscript closes the transcript, removing the session when this
// run created it and it never got a prompt; kept says whether it stays.
func (c *Session) CloseTranscript() (kept bool, err error) {
	return closeSessionKept(c.cfg, c.ws.Root(), c.sess.w, c.sess.created, c.log)
}

// CheckpointStore is the session's checkpoint store; nil when
// checkpoints are off.
func (c *Session) CheckpointStore() *checkpoint.Store {
	if c.cp == nil {
		return nil
	}
	return c.cp.store
}

// MarkUserMessage says the next query is the SDK's message uuid.
func (c *Session) MarkUserMessage(uuid string) { c.cp.markUserMessage(uuid) }

// RewindFiles puts the workspace's files back as they were before the
// SDK's user message uuid (rewind_files), or only lists them with dryRun.
func (c *Session) RewindFiles(ctx context.Context, uuid string, dryRun bool) ([]string, error) {
	if c.cp == nil {
		return nil, errors.New("checkpoints are off in this session")
	}
	return c.cp.rewindFiles(ctx, uuid, dryRun)
}

// PendingSchedules lists the schedules a resumed session left, one a
// line; RestoreSchedules re-creates (yes) or drops them.
func (c *Session) PendingSchedules() string { return c.sess.schedRes.pendingText() }
func (c *Session) RestoreSchedules(yes bool) string {
	return c.sess.schedRes.restore(c.sched, yes)
}

// ModelFacts is what is known of model; ContextWindow the window the
// chat compresses against for it.
func (c *Session) ModelFacts(model string) (modelinfo.Info, bool) { return modelFacts(c.cfg, model) }
func (c *Session) ContextWindow(model string) int                 { return contextWindow(c.cfg, model) }

// ExpandAtPaths appends the files a prompt names as @path.
func (c *Session) ExpandAtPaths(prompt string) string { return expandAtPaths(prompt, c.ws) }
