package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// Launcher is a Runner that can also start a task in the background: the
// task runs its own loop concurrently and its report reaches the parent
// later, as a notification. Launch returns the task's id at once; an
// error (too many running, the session ending) refuses the task.
type Launcher interface {
	Launch(ctx context.Context, t Task) (id string, err error)
}

func (t *Tool) launch(ctx context.Context, task Task) (tools.Result, error) {
	l, ok := t.runner.(Launcher)
	if !ok {
		return tools.Errorf("INVALID_TOOL_PARAMS", "agent: this session cannot run subagents in the background; call again without run_in_background"), nil
	}
	id, err := l.Launch(ctx, task)
	if err != nil {
		return tools.Errorf("SUBAGENT_FAILED", "agent: the %s subagent was not started: %v", task.Def.Name, err), nil
	}
	return tools.Result{
		Output: fmt.Sprintf("Started the %s subagent in the background as task %s. Its report arrives as a notification when it "+
			"finishes: do not wait or poll for it, go on with other work or end your turn. To give it more instructions while it runs, "+
			"call %s with task_id %q.", task.Def.Name, id, SendMessageName, id),
		Display: fmt.Sprintf("%s: started in the background as %s", task.Def.Name, id),
	}, nil
}

// SendMessageName is the name of the tool agents write to each other with.
const SendMessageName = "send_message"

// Messenger delivers a message to a running agent: to is a background
// task's id, or "parent". It returns what the sender is told.
type Messenger interface {
	SendMessage(ctx context.Context, to, text string) (string, error)
}

// SendMessage is the send_message tool. The main agent's copy writes to a
// background task it names; a background subagent's copy writes to its
// parent. The message arrives at the receiver's next round boundary.
type SendMessage struct {
	m  Messenger
	to string // fixed recipient; empty: the call names it
}

// NewSendMessage returns the tool over m. With to empty the call names
// the task (task_id); otherwise every message goes to to.
func NewSendMessage(m Messenger, to string) *SendMessage { return &SendMessage{m: m, to: to} }

func (*SendMessage) Name() string { return SendMessageName }

func (s *SendMessage) Description() string {
	if s.to != "" {
		return "Send a message to the agent that started you (it runs on while you work). Use it to report something it must " +
			"know before your final report, or to ask it a question; its answer, if any, arrives as a message at your next step. " +
			"Your final report is still what ends your task."
	}
	return "Send a message to a subagent running in the background, by the task id its launch returned. It reads the " +
		"message at its next step (never in the middle of one); there is no inline reply: what it does with the message " +
		"shows in its report or in a message it sends back."
}

// Kind is think: a message changes nothing outside the agents.
func (*SendMessage) Kind() tools.Kind                     { return tools.KindThink }
func (*SendMessage) ConcurrencySafe(json.RawMessage) bool { return true }
func (s *SendMessage) Schema() json.RawMessage {
	to := `"task_id":{"type":"string","description":"The id of the background task, as its launch returned it."},`
	req := `["task_id","message"]`
	if s.to != "" {
		to, req = "", `["message"]`
	}
	return json.RawMessage(`{"type":"object","properties":{` + to +
		`"message":{"type":"string","minLength":1,"maxLength":65536,"description":"The message."},` +
		`"summary":{"type":"string","description":"An optional 5-10 word summary for the user."}` +
		`},"required":` + req + `,"additionalProperties":false}`)
}

// maxMessage bounds one message: it becomes a round of the receiver's.
const maxMessage = 64 << 10

func (s *SendMessage) Execute(ctx context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p struct {
		TaskID  string `json:"task_id"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the arguments do not decode: %v", SendMessageName, err), nil
	}
	to := s.to
	if to == "" {
		to = strings.TrimSpace(p.TaskID)
	}
	switch {
	case strings.TrimSpace(p.Message) == "":
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the message is empty", SendMessageName), nil
	case len(p.Message) > maxMessage:
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the message is longer than %d bytes", SendMessageName, maxMessage), nil
	case to == "":
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: task_id is empty; name the background task", SendMessageName), nil
	}
	said, err := s.m.SendMessage(ctx, to, p.Message)
	if err != nil {
		return tools.Errorf("SEND_MESSAGE_FAILED", "%s: %v", SendMessageName, err), nil
	}
	return tools.Result{Output: said, Display: "→ " + to}, nil
}
