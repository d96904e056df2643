package core

import (
	"fmt"

	"github.com/plyhq/ply/internal/agent"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/tools"
)

// Every request declares the offered tools; a declaration of a tool no
// call of which could run costs bytes on each of them and invites calls
// that are only refused. withheld returns the tools of reg that cannot
// run in this run, each with why, for the model should it call one
// anyway:
//
//   - the shell when it refuses every command (--sandbox without the
//     kernel's support), or when, in a run no one answers, every command
//     asks (no read-only profile);
//   - task_output without the shell, or when no background command could
//     be allowed; task_stop when, besides, no subagent or schedule could
//     run in the background;
//   - in a run no one answers (ply -p without the SDK's stream) and no
//     PreToolUse hook could allow a call, the tools the fixed approval
//     mode always refuses or asks for (asking is refusing there), unless
//     an allow rule applies to them.
//
// The approval mode of such a run does not change: only an approved
// exit_plan_mode could, and that asks too unless a rule allows it, in
// which case every tool stays. Attended runs (the UI, ACP, the SDK) keep
// every tool, as the user may answer or change the mode at any time.
func withheld(cfg *Config, policy *permission.Policy, reg *tools.Registry, bgEntry bool) map[string]string {
	shell, hasShell := reg.Lookup(permission.ToolShell)
	_, hasAgent := reg.Lookup(agent.Name)
	mode := policy.Mode()
	fixed := !cfg.Interactive && !cfg.StreamInput && cfg.Settings.Hooks[hooks.PreToolUse] == nil &&
		(mode != permission.ModePlan || !policy.MayAllow(permission.ToolExitPlanMode))

	out := map[string]string{}
	// The shell refuses every command when --sandbox cannot be had; and
	// where the kernel cannot confine commands that only read, those ask
	// too, so in a fixed mode but yolo every command asks.
	if r, ok := shell.(interface{ Refusal() string }); ok && r.Refusal() != "" {
		out[permission.ToolShell] = permission.ToolShell + " is not offered in this run: " + r.Refusal()
		hasShell = false
	} else if err := policy.ReadsAsk(); hasShell && fixed && mode != permission.ModeYOLO && err != nil && !policy.MayAllow(permission.ToolShell) {
		out[permission.ToolShell] = fmt.Sprintf("%s is not offered in this run: every command asks, as the kernel has no read-only profile to confine those that only read (%v), and no one can answer in a run without a user. "+
			"To run commands that only read unasked and unconfined, the user can start ply with --allow-unsandboxed or set \"allowUnsandboxed\": true in their own settings", permission.ToolShell, err)
		hasShell = false
	}
	// A background command is never read-only (the policy's
	// readOnlyShell): outside yolo it asks, and plan mode refuses it.
	background := hasShell
	if hasShell && fixed {
		switch mode {
		case permission.ModeYOLO:
		case permission.ModePlan:
			background = false
		default:
			background = policy.MayAllow(permission.ToolShell)
		}
	}
	if !background {
		const why = "%s is not offered in this run: no command can run in the background"
		out[tools.TaskOutputName] = fmt.Sprintf(why, tools.TaskOutputName)
		if !(hasAgent && bgEntry) && !cfg.Interactive {
			// Schedules are offered in the interactive UI only.
			out[tools.TaskStopName] = fmt.Sprintf(why+", no subagent and no schedule", tools.TaskStopName)
		}
	}
	if !fixed || mode == permission.ModeYOLO {
		return out
	}
	for _, n := range reg.Names() {
		t, _ := reg.Lookup(n)
		switch {
		case !refused(mode, t.Kind(), n):
		case mode == permission.ModePlan && !t.Kind().ReadOnly():
			out[n] = fmt.Sprintf("%s is not offered in this run: approval mode plan refuses it, and no one can approve leaving plan mode in a run without a user", n)
		case !policy.MayAllow(n):
			out[n] = fmt.Sprintf("%s is not offered in this run: approval mode %s asks before it runs, no one can answer in a run without a user, and no allow rule applies to it", n, mode)
		}
	}
	return out
}

// refused reports whether mode, with no rule deciding, refuses or asks
// before every call of the tool named name of kind k (permission.Policy's
// decide and modeDefault). The shell, which runs commands that only read,
// the agent tool, whose subagents' calls are checked one by one, and
// exit_plan_mode are never refused outright.
func refused(mode permission.Mode, k tools.Kind, name string) bool {
	switch {
	case name == permission.ToolShell || name == permission.ToolExitPlanMode || k == tools.KindAgent:
		return false
	case k == tools.KindFetch || name == permission.ToolWebFetch:
		return true // fetches ask in every mode but yolo
	case k.ReadOnly():
		return false
	case mode == permission.ModeAutoEdit && k == tools.KindEdit:
		return false // edits inside the workspace run unasked
	}
	return true
}

// untilPlanEnds returns the tools of reg that plan mode refuses but that
// may run once the mode changes, for a session that starts in plan mode
// and may leave it: those withheld (whose call plan mode would refuse
// anyway), then task_output, as no command can run in the background in
// plan mode. They are added at the end of the list when plan mode ends
// (modeSync). The shell, the agent tool and exit_plan_mode are not among
// them.
func untilPlanEnds(policy *permission.Policy, reg *tools.Registry) []tools.Tool {
	if policy.Mode() != permission.ModePlan {
		return nil
	}
	var out []tools.Tool
	for _, n := range reg.Names() {
		t, _ := reg.Lookup(n)
		if !t.Kind().ReadOnly() && refused(permission.ModePlan, t.Kind(), n) {
			out = append(out, t)
		}
	}
	if _, ok := reg.Lookup(permission.ToolShell); ok {
		if t, ok := reg.Lookup(tools.TaskOutputName); ok {
			out = append(out, t)
		}
	}
	return out
}
