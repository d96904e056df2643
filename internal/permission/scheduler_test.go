package permission

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// countingTool is a tool that counts its runs.
type countingTool struct {
	fakeTool
	runs *atomic.Int32
}

func (c countingTool) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	c.runs.Add(1)
	return tools.Result{Output: "ran"}, nil
}

// TestWithScheduler plugs the policy into a scheduler, as the command
// wires it, and checks what runs and what the model is told.
func TestWithScheduler(t *testing.T) {
	root, _ := testWorkspace(t)
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{
		Mode:         ModeDefault,
		Workspace:    ws,
		Settings:     []RuleSet{{Allow: []string{"Bash(go test:*)"}, Deny: []string{"Bash(rm *)"}}},
		ExcludeTools: []string{"web_fetch"},

		ReadOnlyProfile: profileAvailable,
	})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	reg := tools.NewRegistry()
	for _, name := range []string{ToolShell, ToolWebFetch, ToolReadFile} {
		reg.Register(countingTool{fakeTool{name, fakeKinds[name]}, &runs})
	}
	for _, name := range reg.Names() {
		if !p.Offered(name) {
			reg.Remove(name)
		}
	}
	if got := strings.Join(reg.Names(), ","); got != "run_shell_command,read_file" {
		t.Fatalf("offered %s", got)
	}
	s := scheduler.New(reg, scheduler.WithPolicy(p))
	calls, err := s.Run(t.Context(), []scheduler.Request{
		{CallID: "1", Name: ToolShell, Args: `{"command":"go test ./..."}`},
		{CallID: "2", Name: ToolShell, Args: `{"command":"rm -rf /"}`},
		{CallID: "3", Name: ToolWebFetch, Args: `{"url":"https://x.example"}`},
		{CallID: "4", Name: ToolReadFile, Args: `{"file_path":"README.md"}`},
		{CallID: "5", Name: ToolShell, Args: `{"command":"npm publish"}`},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		state  scheduler.State
		errTyp string
		output string
	}{
		{scheduler.StateSuccess, "", "ran"},
		{scheduler.StateError, scheduler.ErrorTypeExecutionDenied, "denied by rule Bash(rm *) from settings"},
		{scheduler.StateError, scheduler.ErrorTypeExecutionDenied, "web_fetch is excluded by --exclude-tools"},
		{scheduler.StateSuccess, "", "ran"},
		{scheduler.StateError, scheduler.ErrorTypeExecutionDenied, "not known to be read-only"}, // no approver
	}
	for i, c := range calls {
		if c.State() != want[i].state || c.ErrorType() != want[i].errTyp || !strings.Contains(c.Response().Output, want[i].output) {
			t.Errorf("call %d: %s %s %q, want %s %s containing %q", i+1, c.State(), c.ErrorType(), c.Response().Output, want[i].state, want[i].errTyp, want[i].output)
		}
	}
	if runs.Load() != 2 {
		t.Errorf("%d tools ran, want 2", runs.Load())
	}
}
