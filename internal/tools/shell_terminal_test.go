package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeTerminals records the commands it is given and answers with res,
// or, with hang, waits for the context to end.
type fakeTerminals struct {
	runs []TerminalRun
	res  TerminalResult
	err  error
	hang bool
}

func (f *fakeTerminals) RunInTerminal(ctx context.Context, r TerminalRun) (TerminalResult, error) {
	f.runs = append(f.runs, r)
	if f.hang {
		<-ctx.Done()
		return TerminalResult{Output: "partial"}, nil
	}
	return f.res, f.err
}

func TestShellRunsInTheClientsTerminal(t *testing.T) {
	root, ws := ftWorkspace(t)
	sh := NewShell(ws)
	term := &fakeTerminals{res: TerminalResult{Output: "built\n", Exited: true, ExitCode: 2}}
	sh.SetTerminals(term)
	res := ftExec(t, sh, map[string]any{"command": "make"})
	if len(term.runs) != 1 || term.runs[0].Command != "make" || term.runs[0].Dir != root || term.runs[0].Shell == "" {
		t.Fatalf("terminal runs = %+v", term.runs)
	}
	if !strings.Contains(res.Output, "Output: built") || !strings.Contains(res.Output, "Exit code: 2") || res.IsError {
		t.Errorf("answer = %+v", res)
	}

	// A confined command and a background one stay ply's: the client's
	// terminal has no sandbox and no job control of ply's.
	ctx := WithConfinement(context.Background(), ConfineReadOnly)
	if _, err := sh.Execute(ctx, json.RawMessage(`{"command":"echo local"}`), nil); err != nil {
		t.Fatal(err)
	}
	if len(term.runs) != 1 {
		t.Errorf("a confined command went to the client's terminal")
	}

	// A terminal the client cannot give runs the command here.
	term.err = errors.ErrUnsupported
	res = ftExec(t, sh, map[string]any{"command": "echo here"})
	if !strings.Contains(res.Output, "Output: here") {
		t.Errorf("fallback answer = %q", res.Output)
	}

	// The timeout ends the terminal's command.
	term.err, term.hang = nil, true
	start := time.Now()
	res = ftExec(t, sh, map[string]any{"command": "sleep 100", "timeout": 50})
	if res.ErrorType != "SHELL_TIMEOUT" || !strings.Contains(res.Output, "partial") || time.Since(start) > 5*time.Second {
		t.Errorf("timed-out answer = %+v", res)
	}
}
