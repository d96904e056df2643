package scheduler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// upper is a tool that only reads: it upper-cases its text argument.
type upper struct{}

func (upper) Name() string        { return "upper" }
func (upper) Description() string { return "Upper-cases text." }
func (upper) Kind() tools.Kind    { return tools.KindRead }
func (upper) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
}
func (upper) Execute(_ context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var a struct{ Text string }
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("decoding upper's arguments: %w", err)
	}
	return tools.Result{Output: strings.ToUpper(a.Text)}, nil
}

// touch is a tool that writes, so the default policy asks before it runs;
// with no Approver (a headless run) the call is denied instead.
type touch struct{}

func (touch) Name() string            { return "touch" }
func (touch) Description() string     { return "Creates a file." }
func (touch) Kind() tools.Kind        { return tools.KindEdit }
func (touch) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (touch) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	return tools.Result{Output: "created"}, nil
}

// Run takes the calls of one model reply and returns each of them terminal,
// in request order, whatever happened to it: the caller sends every
// Response back to the model. A failure is a result the model reads (with a
// stable error type), never an error of Run.
func ExampleScheduler_Run() {
	s := scheduler.New(tools.NewRegistry(upper{}, touch{}),
		scheduler.WithPolicy(scheduler.ReadOnlyPolicy{}), // the default, named here
		scheduler.WithApprovalHint("Ask the user."))

	calls, err := s.Run(context.Background(), []scheduler.Request{
		{CallID: "1", Name: "upper", Args: `{"text":"hello"}`},
		{CallID: "2", Name: "upper", Args: `{}`},
		{CallID: "3", Name: "touch", Args: `{}`},
		{CallID: "4", Name: "delete_everything", Args: `{}`},
	})
	if err != nil {
		fmt.Println("run:", err)
		return
	}
	for _, c := range calls {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s: %s %s", c.CallID, c.Name, c.State(), c.ErrorType())))
	}
	fmt.Println(calls[0].Response().Output)
	fmt.Println(strings.HasSuffix(calls[2].Response().Output, "Ask the user."))
	// Output:
	// 1 upper: success
	// 2 upper: error INVALID_TOOL_PARAMS
	// 3 touch: error EXECUTION_DENIED
	// 4 delete_everything: error TOOL_NOT_REGISTERED
	// HELLO
	// true
}
