package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/tools"
)

// Values of the "terminal" config option: where a session's shell
// commands run.
const (
	// terminalPly is ply's own runner, the default: the environment ply
	// gives commands (secrets withheld), and its sandbox when configured.
	terminalPly = "ply"
	// terminalEditor is the client's terminal (terminal/create): the
	// user watches the command there, and it gets the editor's own
	// environment, whatever secrets it holds, which ply cannot remove.
	terminalEditor = "editor"
)

var terminalValues = sdk.SessionConfigSelectOptionsUngrouped{
	{Value: terminalPly, Name: "ply", Description: sdk.Ptr("Commands run in ply's own runner, which withholds secrets from their environment")},
	{Value: terminalEditor, Name: "Editor terminal", Description: sdk.Ptr("Commands run in the editor's terminal, with the editor's whole environment, secrets included")},
}

// terminalOption is the "terminal" config option; ok is false when the
// client offers no terminals, so there is nothing to choose.
func (s *session) terminalOption() (o sdk.SessionConfigOption, ok bool) {
	s.mu.Lock()
	offered, editor := s.terminals, s.editorTerminal
	s.mu.Unlock()
	if !offered {
		return o, false
	}
	current := terminalPly
	if editor {
		current = terminalEditor
	}
	return selectOption(optTerminal, "Run commands in", "", current, terminalValues), true
}

// setTerminal sets where the session's shell commands run.
func (s *session) setTerminal(v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.terminals {
		return invalid(errors.New("the client offers no terminals"))
	}
	switch v {
	case terminalPly, terminalEditor:
		s.editorTerminal = v == terminalEditor
		return nil
	}
	return invalid(fmt.Errorf("the terminal option is %q or %q, not %q", terminalPly, terminalEditor, v))
}

// clientTerminals runs a session's shell commands in the client's
// terminals (tools.Terminals), shown in the call that runs them, when
// the client offers terminals and asked for them (the "terminal" config
// option); otherwise it says errors.ErrUnsupported and the command runs
// in ply's own runner. A terminal's command gets the editor's
// environment, not the one ply gives its commands, so running there is
// the client's choice, never ply's.
type clientTerminals struct{ s *session }

var _ tools.Terminals = clientTerminals{}

func (t clientTerminals) RunInTerminal(ctx context.Context, r tools.TerminalRun) (tools.TerminalResult, error) {
	t.s.mu.Lock()
	editor := t.s.editorTerminal
	t.s.mu.Unlock()
	if !editor {
		return tools.TerminalResult{}, errors.ErrUnsupported
	}
	conn, sid := t.s.agent.conn, t.s.id
	req := sdk.CreateTerminalRequest{SessionId: sid, Command: r.Shell, Args: []string{"-c", r.Command},
		Cwd: sdk.Ptr(r.Dir), OutputByteLimit: sdk.Ptr(r.OutputLimit)}
	for _, kv := range r.Env {
		name, value, _ := strings.Cut(kv, "=")
		req.Env = append(req.Env, sdk.EnvVariable{Name: name, Value: value})
	}
	created, err := conn.CreateTerminal(ctx, req)
	var re *sdk.RequestError
	if errors.As(err, &re) && re.Code == methodNotFound {
		return tools.TerminalResult{}, errors.ErrUnsupported
	}
	if err != nil {
		return tools.TerminalResult{}, fmt.Errorf("terminal/create: %w", err)
	}
	id := created.TerminalId
	// What follows the run must happen even when it was cancelled.
	after := context.WithoutCancel(ctx)
	defer func() {
		if _, err := conn.ReleaseTerminal(after, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: id}); err != nil {
			t.s.agent.cfg.Log.Warn("acp: releasing a terminal", "err", err)
		}
	}()
	// Shown in the call that runs it, if the client knows that call (a
	// subagent's calls are not reported).
	if call := tools.CallID(ctx); call != "" && t.s.known(call) {
		t.s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(call), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(id)})))
	}
	exit, err := conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: id})
	res := tools.TerminalResult{Exited: err == nil}
	if err != nil {
		if ctx.Err() == nil {
			return tools.TerminalResult{}, fmt.Errorf("terminal/wait_for_exit: %w", err)
		}
		if _, err := conn.KillTerminal(after, sdk.KillTerminalRequest{SessionId: sid, TerminalId: id}); err != nil {
			t.s.agent.cfg.Log.Warn("acp: killing a terminal's command", "err", err)
		}
	}
	out, err := conn.TerminalOutput(after, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: id})
	if err != nil {
		return tools.TerminalResult{}, fmt.Errorf("terminal/output: %w", err)
	}
	res.Output = out.Output
	if res.Exited {
		if exit.ExitCode != nil {
			res.ExitCode = *exit.ExitCode
		}
		if exit.Signal != nil {
			res.Signal = *exit.Signal
		}
	}
	return res, nil
}

// methodNotFound is JSON-RPC's code for a method the peer lacks.
const methodNotFound = -32601
