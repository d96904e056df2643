package permission

import (
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// autoPolicy is a policy in auto mode whose kernel has the workspace
// sandbox when sandboxErr is nil.
func autoPolicy(t *testing.T, root string, sandboxErr error, allow, ask, deny []string) *Policy {
	t.Helper()
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{
		Mode: ModeAuto, Workspace: ws,
		Settings:         []RuleSet{{Allow: allow, Ask: ask, Deny: deny}},
		ReadOnlyProfile:  profileAvailable,
		WorkspaceSandbox: func() error { return sandboxErr },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAutoRunsCommandsInTheSandbox checks auto mode's decisions: every
// command no rule decided runs unasked in the workspace sandbox, a
// read-only one under the read-only profile, an allowed one as approved;
// deny and ask rules hold, edits inside run unasked, and web fetches ask.
func TestAutoRunsCommandsInTheSandbox(t *testing.T) {
	root, outside := testWorkspace(t)
	p := autoPolicy(t, root, nil, []string{"Bash(make deploy)"}, []string{"Bash(git push:*)"}, []string{"Bash(rm -rf /:*)", "Bash(curl:*)"})
	for _, c := range []struct {
		call  *scheduler.Call
		want  scheduler.Verdict
		level tools.Confinement
	}{
		{shellCall(t, "go test ./..."), scheduler.VerdictAllow, tools.ConfineWorkspace},
		{shellCall(t, "rm -rf src && echo x > new.txt"), scheduler.VerdictAllow, tools.ConfineWorkspace},
		{shellCall(t, "python3 -c 'print(1)'"), scheduler.VerdictAllow, tools.ConfineWorkspace},
		{call(t, ToolShell, map[string]any{"command": "npm run dev", "is_background": true}), scheduler.VerdictAsk, tools.Unconfined},
		{shellCall(t, "git status"), scheduler.VerdictAllow, tools.ConfineReadOnly},
		{shellCall(t, "make deploy"), scheduler.VerdictAllow, tools.Unconfined},
		{shellCall(t, "git push origin main"), scheduler.VerdictAsk, tools.Unconfined},
		{shellCall(t, "curl https://example.com"), scheduler.VerdictDeny, tools.Unconfined},
		{shellCall(t, "eval \"$X\""), scheduler.VerdictDeny, tools.Unconfined}, // opaque: every deny rule matches
		{call(t, "write_file", map[string]any{"file_path": "src/new.go", "content": "x"}), scheduler.VerdictAllow, tools.Unconfined},
		{call(t, "write_file", map[string]any{"file_path": outside + "/x", "content": "x"}), scheduler.VerdictAsk, tools.Unconfined},
		{call(t, "write_file", map[string]any{"file_path": "AGENTS.md", "content": "x"}), scheduler.VerdictAsk, tools.Unconfined},
		{call(t, ToolWebFetch, map[string]any{"url": "https://example.com"}), scheduler.VerdictAsk, tools.Unconfined},
	} {
		v, reason, level := p.CheckConfined(t.Context(), c.call)
		if v != c.want || (v == scheduler.VerdictAllow && level != c.level) {
			t.Errorf("%s: %v %v (%s), want %v %v", c.call.Params, v, level, reason, c.want, c.level)
		}
	}
}

// TestAutoWithoutSandboxIsAutoEdit checks that where the kernel has no
// workspace sandbox auto never runs a command unconfined: it asks, and
// says why, as auto-edit would; edits still run unasked.
func TestAutoWithoutSandboxIsAutoEdit(t *testing.T) {
	root, _ := testWorkspace(t)
	p := autoPolicy(t, root, errors.New("the kernel was built without Landlock"), nil, nil, nil)
	v, reason, _ := p.CheckConfined(t.Context(), shellCall(t, "go test ./..."))
	if v != scheduler.VerdictAsk || !strings.Contains(reason, "without Landlock") {
		t.Errorf("go test: %v (%s), want ask naming why", v, reason)
	}
	if p.SandboxMissing() == nil {
		t.Error("SandboxMissing is nil")
	}
	if v, reason := p.Check(t.Context(), call(t, "edit", map[string]any{"file_path": "README.md", "old_string": "a", "new_string": "b"})); v != scheduler.VerdictAllow {
		t.Errorf("edit: %v (%s)", v, reason)
	}
	ws, _ := tools.NewWorkspace(root)
	unprobed, err := New(Config{Mode: ModeAuto, Workspace: ws, ReadOnlyProfile: profileAvailable})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := unprobed.Check(t.Context(), shellCall(t, "go test ./...")); v != scheduler.VerdictAsk {
		t.Errorf("a policy told nothing of the sandbox ran a command: %v", v)
	}
}

// TestEscalationAsks checks a command that asks to run outside the
// sandbox: it asks, showing the justification, in every mode but yolo; an
// allow rule covers it (and runs it unconfined); without a justification
// it is refused; deny rules hold.
func TestEscalationAsks(t *testing.T) {
	root, _ := testWorkspace(t)
	p := autoPolicy(t, root, nil, []string{"Bash(npm install)"}, nil, []string{"Bash(curl:*)"})
	esc := func(cmd, why string) *scheduler.Call {
		return call(t, ToolShell, map[string]any{"command": cmd, "run_outside_sandbox": true, "justification": why})
	}
	v, reason, _ := p.CheckConfined(t.Context(), esc("go mod download", "downloads the\nmodules the build needs"))
	if v != scheduler.VerdictAsk || !strings.Contains(reason, "justification: downloads the modules the build needs") {
		t.Errorf("escalation: %v (%s)", v, reason)
	}
	if v, _, _ := p.CheckConfined(t.Context(), esc("git status", "reads")); v != scheduler.VerdictAsk {
		t.Errorf("a read-only escalation: %v, want ask", v)
	}
	if v, _, level := p.CheckConfined(t.Context(), esc("npm install", "network")); v != scheduler.VerdictAllow || level != tools.Unconfined {
		t.Errorf("allowed by a rule: %v %v", v, level)
	}
	if v, _ := p.Check(t.Context(), esc("curl x", "fetch")); v != scheduler.VerdictDeny {
		t.Errorf("deny rule: %v", v)
	}
	if v, reason := p.Check(t.Context(), esc("go mod download", " ")); v != scheduler.VerdictDeny || !strings.Contains(reason, "justification") {
		t.Errorf("no justification: %v (%s)", v, reason)
	}
	p.SetMode(ModeDefault)
	if v, _ := p.Check(t.Context(), esc("git status", "reads")); v != scheduler.VerdictAsk {
		t.Errorf("default mode: %v", v)
	}
	p.SetMode(ModeYOLO)
	if v, _ := p.Check(t.Context(), esc("go mod download", "x")); v != scheduler.VerdictAllow {
		t.Errorf("yolo: %v", v)
	}
}

func TestParseAuto(t *testing.T) {
	m, err := ParseMode("Auto")
	if err != nil || m != ModeAuto || m.String() != "auto" {
		t.Fatalf("ParseMode(Auto) = %v, %v", m, err)
	}
}
