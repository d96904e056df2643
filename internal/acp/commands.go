package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// Command is a command of ply the client may run: a prompt "/name args"
// runs it instead of going to the model, and its answer is shown as the
// agent's message.
type Command struct {
	Name, Description string
	// Hint describes the arguments; "" for a command that takes none.
	Hint string
	Run  func(ctx context.Context, args string) (string, error)
}

// answered runs what must follow an answer once it is written: a session
// just opened learns its commands.
func (a *agent) answered(ans answer) {
	switch ans.method {
	case sdk.AgentMethodSessionNew, sdk.AgentMethodSessionLoad, sdk.AgentMethodSessionResume:
	default:
		return
	}
	if ans.failed || ans.session == "" {
		return
	}
	a.mu.Lock()
	s := a.sessions[sdk.SessionId(ans.session)]
	a.mu.Unlock()
	if s == nil || len(s.core.Commands) == 0 {
		return
	}
	// The writer is held while this runs: send from elsewhere.
	go s.update(context.Background(), sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		AvailableCommands: availableCommands(s.core.Commands)}})
}

func availableCommands(cmds []Command) []sdk.AvailableCommand {
	out := make([]sdk.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
		out = append(out, ac)
	}
	return out
}

// commandOf finds the command a prompt runs: one text block "/name" or
// "/name args" naming one of cmds.
func commandOf(blocks []sdk.ContentBlock, cmds []Command) (*Command, string) {
	if len(blocks) != 1 || blocks[0].Text == nil {
		return nil, ""
	}
	text := strings.TrimSpace(blocks[0].Text.Text)
	if !strings.HasPrefix(text, "/") {
		return nil, ""
	}
	name, args, _ := strings.Cut(text[1:], " ")
	for i := range cmds {
		if cmds[i].Name == name {
			return &cmds[i], strings.TrimSpace(args)
		}
	}
	return nil, ""
}

// command runs c as the session's prompt: one at a time with prompts,
// and cancelled as they are.
func (s *session) command(ctx context.Context, c *Command, args string) (sdk.PromptResponse, error) {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer end()
	out, err := c.Run(ctx, args)
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		out = fmt.Sprintf("/%s failed: %v", c.Name, err)
	}
	if out != "" {
		s.update(ctx, sdk.UpdateAgentMessageText(out))
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}
