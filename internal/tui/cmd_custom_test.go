package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/customcmd"
)

// enter presses Enter and runs what it returns as the program would,
// its messages going to the harness's queue.
func (h *harness) enter() {
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	runCmds(cmd, h.msgs)
}

func isFunc(msg tea.Msg) bool { _, ok := msg.(funcMsg); return ok }

// fakeShell records the commands it is asked to run and answers each
// with its own output.
type fakeShell struct {
	mu  sync.Mutex
	ran []string
	out map[string]string
}

func (f *fakeShell) run(_ context.Context, cmd string) (string, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, cmd)
	if o, ok := f.out[cmd]; ok {
		return o, 0, nil
	}
	return "boom\n", 2, nil
}

func TestCustomCommand(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	sh := &fakeShell{out: map[string]string{"git status": "clean\n", "git log -1 'HEAD~1'": "abc fix\n"}}
	h.m.cfg.Session = struct {
		bare
		ShellRunner
	}{bare{}, shellFunc(sh.run)}
	h.m.cfg.Extra.Custom = []customcmd.Command{
		{Name: "fix", Body: "Fix issue #$1 with priority $2.", Source: "project", Description: "fix an issue", ArgumentHint: "[n] [prio]"},
		{Name: "frontend:test", Body: "Run the UI tests", Source: "user"},
		{Name: "status", Body: "Status: !`git status`\nLast: !{git log -1 $1}", Source: "project"},
		{Name: "help", Body: "shadowed by the built-in"},
	}

	// Tab completes a custom command, with its namespace.
	h.typeText("/fro")
	h.press(tea.KeyTab, 0)
	if got := h.m.input.Value(); got != "/frontend:test " {
		t.Fatalf("Tab gave %q", got)
	}
	h.m.input.Reset()
	h.typeText("/f")
	if v := h.view(); !strings.Contains(v, "/fix") || !strings.Contains(v, "/frontend:test") {
		t.Fatalf("the menu lacks the custom commands:\n%s", v)
	}
	h.m.input.Reset()

	// $1 and $2 take the words typed after the name.
	h.send("/fix 42 high")
	sent := rec.rounds()
	if len(sent) != 1 || sent[0].parts[len(sent[0].parts)-1].Text != "Fix issue #42 with priority high." {
		t.Fatalf("sent %+v", sent)
	}
	if p := h.printed(); !strings.Contains(p, "> /fix 42 high") {
		t.Fatalf("the prompt shown is not the command typed:\n%s", p)
	}

	// Shell commands wait for a yes; no runs nothing and sends nothing.
	h.typeText("/status HEAD~1")
	h.enter()
	if v := h.view(); !strings.Contains(v, "$ git status") || !strings.Contains(v, "$ git log -1 'HEAD~1'") || !strings.Contains(v, "y/Enter run them") {
		t.Fatalf("no confirmation listing the commands:\n%s", v)
	}
	h.typeText("n")
	if len(sh.ran) != 0 || len(rec.rounds()) != 1 || h.m.picker != nil {
		t.Fatalf("n ran %v / sent %d rounds", sh.ran, len(rec.rounds()))
	}
	h.typeText("/status HEAD~1")
	h.enter()
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	runCmds(cmd, h.msgs)
	h.pumpUntil(isFunc)
	h.pumpUntil(isDone)
	sent = rec.rounds()
	if len(sent) != 2 || sent[1].parts[0].Text != "Status: clean\nLast: abc fix" {
		t.Fatalf("sent %+v", sent[len(sent)-1])
	}

	// A built-in keeps its name; /help lists the custom commands.
	h.typeText("/help")
	h.enter()
	p := h.printed()
	if !strings.Contains(p, "Custom commands:") || !strings.Contains(p, "/fix [n] [prio]") || !strings.Contains(p, "fix an issue (project)") {
		t.Fatalf("/help lacks the custom commands:\n%s", p)
	}
	if strings.Contains(p, "shadowed by the built-in") || len(rec.rounds()) != 2 {
		t.Fatal("a custom command shadowed a built-in")
	}
}

func TestBangCommand(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	sh := &fakeShell{out: map[string]string{"ls": "a.go\nb.go\n"}}
	h.m.cfg.Session = struct {
		bare
		ShellRunner
	}{bare{}, shellFunc(sh.run)}
	h.typeText("!ls")
	h.enter()
	h.pumpUntil(isFunc)
	if len(sh.ran) != 1 || sh.ran[0] != "ls" || len(rec.rounds()) != 0 {
		t.Fatalf("ran %v, sent %d rounds", sh.ran, len(rec.rounds()))
	}
	if p := h.printed(); !strings.Contains(p, "> !ls") || !strings.Contains(p, "⎿ a.go\n    b.go") || !strings.Contains(p, "next prompt") {
		t.Fatalf("output not shown:\n%s", p)
	}
	h.typeText("!false")
	h.enter()
	h.pumpUntil(isFunc)
	if p := h.printed(); !strings.Contains(p, "boom\n    (exit code 2)") {
		t.Fatalf("failure not shown:\n%s", p)
	}
	h.send("what now?")
	parts := rec.rounds()[0].parts
	if len(parts) != 3 || !strings.Contains(parts[0].Text, "$ ls\n```\na.go\nb.go\n```") ||
		!strings.Contains(parts[1].Text, "$ false") || parts[2].Text != "what now?" {
		t.Fatalf("the shell output did not go with the prompt: %+v", parts)
	}
	// Sent once only.
	h.send("and then?")
	if parts := rec.rounds()[1].parts; len(parts) != 1 {
		t.Fatalf("the shell output was sent again: %+v", parts)
	}
}

// TestBangStops checks that Esc stops a running !cmd, and that a
// stopped custom command sends nothing.
func TestBangStops(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	started := make(chan struct{}, 2)
	h.m.cfg.Session = struct {
		bare
		ShellRunner
	}{bare{}, shellFunc(func(ctx context.Context, cmd string) (string, int, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "partial\n", 0, ctx.Err()
	})}
	h.typeText("!sleep 100")
	h.enter()
	<-started
	if !strings.Contains(h.view(), "running sleep 100… (esc to stop)") || strings.Contains(h.printed(), "running") {
		t.Fatalf("the progress line is not in the live area alone:\n%s\nprinted:\n%s", h.view(), h.printed())
	}
	h.press(tea.KeyEscape, 0)
	h.pumpUntil(isFunc)
	if p := h.printed(); !strings.Contains(p, "partial") || !strings.Contains(p, "(stopped by the user)") || h.m.cmds.shellRunning {
		t.Fatalf("after Esc:\n%s", p)
	}

	h.m.cfg.Extra.Custom = []customcmd.Command{{Name: "st", Body: "!`sleep 100`"}}
	h.typeText("/st")
	h.enter()
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	runCmds(cmd, h.msgs)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the confirmed command did not start")
	}
	h.ctrl('c')
	h.pumpUntil(isFunc)
	if !strings.Contains(h.printed(), "⏹ stopped; /st was not sent") || len(rec.rounds()) != 0 {
		t.Fatalf("rounds %d:\n%s", len(rec.rounds()), h.printed())
	}
}
