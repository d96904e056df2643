package permission

import (
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// shellDefault decides a shell command no rule decided. A command that
// only reads runs unasked under the read-only profile; in auto mode every
// other command runs unasked inside the workspace sandbox. A command that
// asks to run outside the sandbox is never allowed on the strength of a
// profile: it asks, showing its justification.
func (p *Policy) shellDefault(mode Mode, ci *callInfo) decision {
	if ci.args.RunOutsideSandbox {
		return escalation(mode, ci)
	}
	if p.readOnlyShell(ci) {
		if p.noProfile == nil {
			d := allow("the command only reads")
			d.confine = tools.ConfineReadOnly // the kernel holds the command to that
			return d
		}
		if mode != ModeAuto || p.noSandbox != nil {
			return ask("the command only reads, but it would run without the kernel's read-only profile (%v), so it needs the user's approval. "+
				"To run such commands unasked without the profile, the user can start ply with --allow-unsandboxed or set \"allowUnsandboxed\": true in their own settings", p.noProfile)
		}
	}
	if mode != ModeAuto {
		return ask("approval mode %s asks before running commands that are not known to be read-only", mode)
	}
	if p.noSandbox != nil {
		return ask("approval mode auto runs commands unasked only inside the kernel's sandbox, which this system cannot provide (%v), so it asks as auto-edit does", p.noSandbox)
	}
	if ci.args.IsBackground {
		// What a background command changes after its call has answered
		// escapes the checks made when a sandboxed command ends.
		return ask("approval mode auto runs background commands only with the user's approval")
	}
	d := allow("approval mode auto runs the command inside the workspace sandbox")
	d.confine = tools.ConfineWorkspace
	return d
}

// escalation decides a command that asks to run outside the sandbox: it
// asks, with the model's justification on one line for the user to
// weigh; one that gives none is refused.
func escalation(mode Mode, ci *callInfo) decision {
	why := strings.Join(strings.Fields(ci.args.Justification), " ")
	if why == "" {
		return deny("the command asks to run outside the sandbox (run_outside_sandbox) but gives no justification: " +
			"say in one line why it needs to, or run it without run_outside_sandbox")
	}
	if len(why) > 300 {
		why = why[:300] + "…"
	}
	return ask("the command asks to run outside the sandbox, unconfined (approval mode %s); justification: %s", mode, why)
}
