package tools

import (
	"context"
	"encoding/json"
)

// ExitPlanModeName is the tool the model calls in plan mode to present its
// plan and ask to leave plan mode.
const ExitPlanModeName = "exit_plan_mode"

// ExitPlanMode presents a plan. The permission policy asks the user about
// every call of it in plan mode; a call that reaches Execute was approved,
// so it leaves plan mode through the callback the command gives.
type ExitPlanMode struct {
	exit func() error
}

// NewExitPlanMode returns the tool; exit switches the session out of plan
// mode.
func NewExitPlanMode(exit func() error) *ExitPlanMode { return &ExitPlanMode{exit: exit} }

func (*ExitPlanMode) Name() string { return ExitPlanModeName }
func (*ExitPlanMode) Description() string {
	return "Present your implementation plan to the user and ask to leave plan mode. Call it when, in plan mode, you have finished researching and have a concrete plan; if the user approves, edits and commands become possible."
}
func (*ExitPlanMode) Kind() Kind { return KindThink }
func (*ExitPlanMode) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string","description":"The plan, in markdown: the steps, and the files each one changes."}},"required":["plan"],"additionalProperties":false}`)
}

func (t *ExitPlanMode) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := t.exit(); err != nil {
		return Errorf("EXIT_PLAN_MODE_FAILED", "could not leave plan mode: %v", err), nil
	}
	return Result{Output: "The user approved the plan; plan mode is over. Carry it out now."}, nil
}
