package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// fakeTool is a tool of a given name and kind that must never run: the
// policy only looks at names, kinds and arguments.
type fakeTool struct {
	name string
	kind tools.Kind
}

func (f fakeTool) Name() string            { return f.name }
func (f fakeTool) Description() string     { return "fake " + string(f.kind) }
func (f fakeTool) Kind() tools.Kind        { return f.kind }
func (f fakeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f fakeTool) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	panic("the policy ran a tool")
}

// kinds of the fake tools by name, as ply registers (or will register) them.
var fakeKinds = map[string]tools.Kind{
	ToolReadFile:            tools.KindRead,
	ToolReadManyFiles:       tools.KindRead,
	ToolListDirectory:       tools.KindRead,
	ToolGrep:                tools.KindSearch,
	ToolGlob:                tools.KindSearch,
	ToolWebFetch:            tools.KindFetch,
	ToolTodoWrite:           tools.KindThink,
	ToolEdit:                tools.KindEdit,
	ToolWriteFile:           tools.KindEdit,
	ToolShell:               tools.KindExecute,
	ToolExitPlanMode:        tools.KindThink,
	"delete_file":           tools.KindDelete,
	"mcp__gh__create_issue": tools.KindOther,
}

// call builds a validated call of the fake tool name with args.
func call(t testing.TB, name string, args map[string]any) *scheduler.Call {
	t.Helper()
	kind, ok := fakeKinds[name]
	if !ok {
		t.Fatalf("no fake tool %q", name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return &scheduler.Call{
		Request: scheduler.Request{CallID: "c1", Name: name, Args: string(raw)},
		Tool:    fakeTool{name, kind},
		Params:  raw,
	}
}

func shellCall(t testing.TB, command string) *scheduler.Call {
	return call(t, ToolShell, map[string]any{"command": command})
}

// testWorkspace builds a workspace with a few files, a .git directory,
// links that point inside and outside it, and a directory outside it.
// It returns the workspace root and the outside directory.
func testWorkspace(t testing.TB) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{"src/pkg", ".git/hooks", "secrets", "docs"} {
		mkdir(t, filepath.Join(root, d))
	}
	mkdir(t, outside)
	for _, f := range []string{"src/main.go", "src/pkg/a.go", ".env", "docs/.env", "secrets/id.key", "README.md", ".git/config"} {
		write(t, filepath.Join(root, f))
	}
	write(t, filepath.Join(outside, "target.txt"))
	link(t, filepath.Join(outside, "target.txt"), filepath.Join(root, "src/out.txt"))
	link(t, outside, filepath.Join(root, "src/outdir"))
	link(t, filepath.Join(root, ".env"), filepath.Join(root, "docs/innocent.txt"))
	link(t, "../.git/hooks", filepath.Join(root, "src/hooks"))
	link(t, filepath.Join(outside, "missing.txt"), filepath.Join(root, "src/dangling.txt"))
	return root, outside
}

func mkdir(t testing.TB, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t testing.TB, f string) {
	t.Helper()
	if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t testing.TB, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// newPolicy builds a policy over root with settings rules.
func newPolicy(t testing.TB, root string, mode Mode, allow, ask, deny []string) *Policy {
	t.Helper()
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{
		Mode:      mode,
		Workspace: ws,
		Settings:  []RuleSet{{Allow: allow, Ask: ask, Deny: deny}},
		HomeDir:   filepath.Join(filepath.Dir(root), "home"),

		ReadOnlyProfile: profileAvailable,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func verdictName(v scheduler.Verdict) string {
	switch v {
	case scheduler.VerdictAllow:
		return "allow"
	case scheduler.VerdictAsk:
		return "ask"
	case scheduler.VerdictDeny:
		return "deny"
	}
	return "?"
}

// profileAvailable plays a kernel with the read-only profile; what a
// policy does without one is TestReadOnlyShellNeedsProfile's.
func profileAvailable() error { return nil }
