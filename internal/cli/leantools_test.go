package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// firstTools returns the names of the tools declared in the first
// request srv received.
func firstTools(t *testing.T, srv *fp.Server) []string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request was sent")
	}
	var names []string
	list, _ := reqs[0].Body["tools"].([]any)
	for _, x := range list {
		d, _ := x.(map[string]any)
		if f, ok := d["function"].(map[string]any); ok {
			d = f
		}
		name, _ := d["name"].(string)
		names = append(names, name)
	}
	return names
}

// checkTools fails unless every name of want is declared in got and
// none of omit is.
func checkTools(t *testing.T, got, want, omit []string) {
	t.Helper()
	for _, n := range want {
		if !slices.Contains(got, n) {
			t.Errorf("%s is not offered; the tools: %v", n, got)
		}
	}
	for _, n := range omit {
		if slices.Contains(got, n) {
			t.Errorf("%s is offered though no call of it could run; the tools: %v", n, got)
		}
	}
}

// A run with no one to approve (ply -p) keeps its approval mode: the
// tools that mode would always refuse are not declared, nor task_output
// when no background command could start.
func TestLeanToolsUnattended(t *testing.T) {
	always := []string{"list_directory", "read_file", "grep_search", "glob", "read_many_files", "run_shell_command", "todo_write", "agent", "task_stop", "send_message"}
	for _, tc := range []struct {
		name       string
		args       []string
		want, omit []string
	}{
		{"default", []string{"-p", "hi"}, nil,
			[]string{"edit", "write_file", "save_memory", "web_fetch", "task_output"}},
		{"plan", []string{"--approval-mode", "plan", "-p", "hi"}, []string{"exit_plan_mode"},
			[]string{"edit", "write_file", "save_memory", "web_fetch", "task_output"}},
		{"auto-edit", []string{"--approval-mode", "auto-edit", "-p", "hi"}, []string{"edit", "write_file"},
			[]string{"save_memory", "web_fetch", "task_output"}},
		{"yolo", []string{"-y", "-p", "hi"}, []string{"edit", "write_file", "save_memory", "web_fetch", "task_output"}, nil},
		// Allow rules let calls run that the mode would ask for.
		{"default with allow rules", []string{"--allowed-tools", "write_file,WebFetch(domain:go.dev),Bash(make:*)", "-p", "hi"},
			[]string{"write_file", "web_fetch", "task_output"}, []string{"edit", "save_memory"}},
		// Without the shell and the agent tool nothing runs in the
		// background.
		{"nothing in the background", []string{"-y", "--exclude-tools", "run_shell_command,agent", "-p", "hi"},
			[]string{"edit"}, []string{"task_output", "task_stop", "send_message", "run_shell_command", "agent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fp.New(t, fp.Turn{fp.Text("ok")})
			r := runPly(t, t.TempDir(), srv, "", tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			want := append(slices.Clone(tc.want), always...)
			if tc.name == "nothing in the background" {
				want = tc.want
			}
			checkTools(t, firstTools(t, srv), want, tc.omit)
		})
	}
}

// A PreToolUse hook may allow what the mode would ask for: with one, the
// tools stay.
func TestLeanToolsKeptWithPreToolUseHook(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"hooks": {"PreToolUse": [{"matcher": "edit", "hooks": [{"type": "command", "command": "true"}]}]}}`)
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	r := runPlyHome(t, t.TempDir(), home, srv, "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkTools(t, firstTools(t, srv), []string{"edit", "write_file", "save_memory", "web_fetch", "task_output"}, nil)
}

// Over the SDK's stream the user answers and may change the mode: a
// session that starts in plan mode leaves out only what plan mode refuses
// (and task_output: no background command can have started), and adds it
// at the end of the list when the mode changes, the other tools keeping
// their order.
func TestLeanToolsPlanModeAddsToolsWhenLeft(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")})
	p, code := startSDK(t, t.TempDir(), srv, "--approval-mode", "plan")
	p.send(userMsg("first"))
	p.next("result", nil)
	p.control("m1", map[string]any{"subtype": "set_permission_mode", "mode": "default"})
	p.send(userMsg("second"))
	p.next("result", nil)
	p.exitOf(code)

	later := []string{"edit", "write_file", "save_memory", "task_output"}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first, second := toolNames(reqs[0]), toolNames(reqs[1])
	checkTools(t, first, []string{"web_fetch", "run_shell_command", "agent", "task_stop", "exit_plan_mode"}, later)
	checkTools(t, second, later, []string{"exit_plan_mode"})
	kept := slices.DeleteFunc(slices.Clone(first), func(n string) bool { return n == "exit_plan_mode" })
	if len(second) < len(kept) || !slices.Equal(second[:len(kept)], kept) {
		t.Errorf("the tools of plan mode are not first, in their order: %v, then %v", first, second)
	}
}

// A model that calls a tool it was not offered hears why it cannot run.
func TestLeanToolsCallOfWithheldToolSaysWhy(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("e1", "edit", `{"file_path":"a.txt","old_string":"a","new_string":"b"}`)},
		fp.Turn{fp.Text("done")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-o", "stream-json", "-p", "edit")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := toolResults(srv)["e1"]; !strings.Contains(got, "approval mode default asks") {
		t.Errorf("the model was told %q", got)
	}
	if !strings.Contains(r.stdout, `"permission_denials":[{"tool_name":"edit"`) {
		t.Errorf("no permission denial in the result:\n%s", r.stdout)
	}
}

// Without the kernel's read-only profile every command asks, commands
// that only read too: a run no one answers then has no use for the shell.
// Yolo, --allow-unsandboxed or an allow rule for commands keep it.
func TestLeanToolsShellWithoutReadOnlyProfile(t *testing.T) {
	saved := core.ReadOnlyAvailable
	t.Cleanup(func() { core.ReadOnlyAvailable = saved })
	core.ReadOnlyAvailable = func() error { return errors.New("the kernel was built without Landlock: function not implemented") }
	for _, tc := range []struct {
		args []string
		keep bool
	}{
		{[]string{"-p", "hi"}, false},
		{[]string{"--approval-mode", "plan", "-p", "hi"}, false},
		{[]string{"--allow-unsandboxed", "-p", "hi"}, true},
		{[]string{"-y", "-p", "hi"}, true},
		{[]string{"--allowed-tools", "Bash(make:*)", "-p", "hi"}, true},
	} {
		srv := fp.New(t, fp.Turn{fp.Text("ok")})
		if r := runPly(t, t.TempDir(), srv, "", tc.args...); r.code != 0 {
			t.Fatalf("%q: exit %d\n%s", tc.args, r.code, r.stderr)
		}
		if got := slices.Contains(firstTools(t, srv), "run_shell_command"); got != tc.keep {
			t.Errorf("%q: run_shell_command offered: %v, want %v", tc.args, got, tc.keep)
		}
	}
}

// With --sandbox on a kernel that cannot sandbox, the shell refuses every
// command for the whole session: it is not offered, and a call of it is
// told why.
func TestLeanToolsShellThatRefusesEverything(t *testing.T) {
	saved := core.SandboxAvailable
	t.Cleanup(func() { core.SandboxAvailable = saved })
	core.SandboxAvailable = func() (int, error) { return 0, errors.New("function not implemented") }
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("c1", "run_shell_command", `{"command":"true"}`)},
		fp.Turn{fp.Text("done")},
	)
	if r := runPly(t, t.TempDir(), srv, "", "--sandbox", "-y", "-p", "go"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkTools(t, firstTools(t, srv), []string{"read_file", "edit", "agent", "task_stop"}, []string{"run_shell_command", "task_output"})
	if a := toolAnswer(t, srv, "c1"); !strings.Contains(a, "--allow-unsandboxed") {
		t.Errorf("the call was answered %q", a)
	}
}

// An allow rule for exit_plan_mode lets a run no one answers leave plan
// mode: what plan mode refuses is added when it does, at the end.
func TestLeanToolsPlanThatCanEnd(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("x1", "exit_plan_mode", `{"plan":"change a.txt"}`)},
		fp.Turn{fp.Text("done")},
	)
	r := runPly(t, t.TempDir(), srv, "", "--approval-mode", "plan", "--allowed-tools", "exit_plan_mode", "-p", "plan it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	later := []string{"edit", "write_file", "save_memory", "task_output"}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkTools(t, toolNames(reqs[0]), []string{"web_fetch", "exit_plan_mode"}, later)
	second := toolNames(reqs[1])
	checkTools(t, second, later, []string{"exit_plan_mode"})
	if !slices.Equal(second[len(second)-len(later):], later) {
		t.Errorf("the tools plan mode refused are not added at the end: %v", second)
	}
}
