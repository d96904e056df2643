package tools

import (
	"context"
	"encoding/json"
)

// StructuredOutputName is the tool a run with --json-schema ends on.
const StructuredOutputName = "structured_output"

// StructuredOutput is the tool that carries a run's final answer as an
// object matching the user's schema. The scheduler validates arguments
// against Schema, so a call that reaches Execute is valid; the entry
// layer ends the run on it.
type StructuredOutput struct {
	schema json.RawMessage
}

// NewStructuredOutput returns the tool for schema, which must be a JSON
// Schema object.
func NewStructuredOutput(schema json.RawMessage) *StructuredOutput {
	return &StructuredOutput{schema: schema}
}

func (*StructuredOutput) Name() string { return StructuredOutputName }
func (*StructuredOutput) Description() string {
	return "Return the final answer of this task as structured data. Call it exactly once, when the task is done, with arguments that match its schema; the run ends when a valid call is made."
}
func (*StructuredOutput) Kind() Kind                { return KindThink }
func (s *StructuredOutput) Schema() json.RawMessage { return s.schema }

func (*StructuredOutput) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return Result{Output: "Structured output accepted."}, nil
}
