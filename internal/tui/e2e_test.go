package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

func TestTmuxApproveEdit(t *testing.T) {
	t.Parallel()
	t.Run("100x30", func(t *testing.T) { t.Parallel(); testTmuxApproveEdit(t, 100, 30, false) })
	t.Run("80x24 NO_COLOR", func(t *testing.T) { t.Parallel(); testTmuxApproveEdit(t, 80, 24, true) })
}

// colour matches an SGR sequence that sets a foreground colour (39, the
// default colour, is a reset and allowed).
var colour = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7])[;m]`)

func testTmuxApproveEdit(t *testing.T, w, h int, noColor bool) {
	bin := buildPly(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.py")
	if err := os.WriteFile(file, []byte("def greet(name):\n    return \"Hello, \" + name + \"!\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("call_1", "read_file", args(map[string]any{"file_path": file})), fp.Usage(100, 10)},
		fp.Turn{fp.ToolCall("call_2", "edit", args(map[string]any{
			"file_path": file, "old_string": `    return "Hello, " + name + "!"`, "new_string": `    return f"Hello, {name}!"`})), fp.Usage(120, 20)},
		fp.Turn{fp.Text("Done: **greet** now uses an f-string."), fp.Usage(130, 9)},
	)

	var env []string
	if noColor {
		env = append(env, "NO_COLOR=1")
	}
	x := startPly(t, bin, dir, srv, w, h, env, "--approval-mode", "default")

	x.waitFor("test-model · default mode")
	x.submit("use an f-string")
	if d := x.waitFor("Allow edit?"); testing.Verbose() {
		t.Logf("dialog:\n%s", d)
	}
	x.run("send-keys", "-t", "ply", "-l", "y")
	// The reply goes to the scrollback before the live area is redrawn,
	// so wait for the final frame (its footer), then check everything.
	s := x.waitFor("350 in / 39 out")
	if testing.Verbose() {
		t.Logf("final:\n%s", s)
	}
	if noColor && colour.MatchString(x.run("capture-pane", "-p", "-e", "-t", "ply")) {
		t.Errorf("NO_COLOR screen has colour escapes:\n%q", x.run("capture-pane", "-p", "-e", "-t", "ply"))
	}
	for _, want := range []string{"> use an f-string", "read_file", "edit", "done", "now uses an f-string"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	got, _ := os.ReadFile(file)
	if !strings.Contains(string(got), `return f"Hello, {name}!"`) {
		t.Fatalf("file not edited:\n%s", got)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Fatal(err)
	}
	// Ctrl+C twice on the idle prompt leaves.
	x.run("send-keys", "-t", "ply", "C-c")
	x.run("send-keys", "-t", "ply", "C-c")
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-L", x.socket, "has-session", "-t", "ply").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("ply did not exit on Ctrl+C twice; screen:\n%s", x.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTmuxPromptHooks checks that a typed prompt goes through the
// settings' hooks: SessionStart once, UserPromptSubmit for each prompt,
// and a blocked prompt is shown as such and never sent. The folder is not
// trusted at first: ply asks, and the hooks load once the user trusts it.
func TestTmuxPromptHooks(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	start := write("start.sh", "#!/bin/sh\ncat >/dev/null\necho START-CTX-7\n", 0o755)
	submit := write("submit.sh", `#!/bin/sh
input=$(cat)
case "$input" in *forbidden*) echo "prompts about that are not allowed" >&2; exit 2;; esac
echo PROMPT-CTX-9
`, 0o755)
	write(".ply/settings.json", `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "`+start+`"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "`+submit+`"}]}]
	}}`, 0o644)
	srv := fp.New(t,
		fp.Turn{fp.Text("first answer"), fp.Usage(10, 2)},
		fp.Turn{fp.Text("second answer"), fp.Usage(20, 3)},
	)
	home := filepath.Join(t.TempDir(), "home")
	x := startPly(t, bin, dir, srv, 100, 30, []string{"PLY_HOME=" + home})

	x.waitFor("Do you trust this folder?")
	x.waitFor(".ply/settings.json (hooks)") // the question names what it gates
	x.run("send-keys", "-t", "ply", "1")
	x.waitFor("Trusted " + dir)
	x.waitFor("test-model ·")
	if b, err := os.ReadFile(filepath.Join(home, "trusted-folders.json")); err != nil || !strings.Contains(string(b), `"path"`) {
		t.Fatalf("the answer was not saved: %s %v", b, err)
	}
	send := func(text string) {
		x.submit(text)
	}
	send("a forbidden thing")
	x.waitFor("prompts about that are not allowed")
	send("first question")
	x.waitFor("first answer")
	send("second question")
	x.waitFor("second answer")

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the blocked prompt is not sent)", len(reqs))
	}
	users := func(r fp.Request) string {
		var b strings.Builder
		for _, m := range r.Messages {
			if m.Role == "user" {
				b.WriteString(m.Text() + "\n")
			}
		}
		return b.String()
	}
	first, second := users(reqs[0]), users(reqs[1])
	if strings.Contains(first, "forbidden") {
		t.Errorf("the blocked prompt reached the model:\n%s", first)
	}
	for _, want := range []string{"first question", "START-CTX-7", "PROMPT-CTX-9"} {
		if !strings.Contains(first, want) {
			t.Errorf("first request's user text lacks %q:\n%s", want, first)
		}
	}
	// SessionStart ran once; the second prompt has its own submit context.
	if n := strings.Count(second, "START-CTX-7"); n != 1 {
		t.Errorf("SessionStart context appears %d times in the second request, want 1:\n%s", n, second)
	}
	if n := strings.Count(second, "PROMPT-CTX-9"); n != 2 {
		t.Errorf("UserPromptSubmit context appears %d times in the second request, want 2:\n%s", n, second)
	}
}

// TestTmuxSubagentAsks checks that a subagent's call that needs approval
// is asked in the UI's dialog, and runs once allowed.
func TestTmuxSubagentAsks(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("status: draft\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		// The main agent hands the task over; the subagent edits, asks,
		// reports; the main agent answers.
		fp.Turn{fp.ToolCall("call_a", "agent", args(map[string]any{"description": "mark final", "prompt": "set the status to final"}))},
		fp.Turn{fp.ToolCall("call_e", "edit", args(map[string]any{"file_path": file, "old_string": "status: draft", "new_string": "status: final"}))},
		fp.Turn{fp.Text("The status is final now.")},
		fp.Turn{fp.Text("Done: the subagent marked the notes final.")},
	)
	x := startPly(t, bin, dir, srv, 100, 30, nil, "--approval-mode", "default")

	x.waitFor("test-model · default mode")
	x.submit("mark the notes final")
	x.waitFor("Allow edit?")
	x.run("send-keys", "-t", "ply", "-l", "y")
	x.waitFor("the subagent marked the notes final")
	got, _ := os.ReadFile(file)
	if string(got) != "status: final\n" {
		t.Fatalf("the subagent's edit did not run: %q", got)
	}
	if err := srv.CheckPairing(); err != nil {
		t.Fatal(err)
	}
}
