package tui

import (
	"strconv"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/customcmd"
)

// The entry layer is told which custom command's prompt goes out, with
// or without shell commands, and not for a typed prompt.
func TestCustomCommandUse(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, rec, nil)
	sh := &fakeShell{out: map[string]string{"git diff": "+x\n"}}
	h.m.cfg.Extra.Custom = []customcmd.Command{
		{Name: "commit", Body: "Commit $ARGUMENTS", AllowedTools: []string{"Bash(git commit:*)"}, Model: "small"},
		{Name: "review", Body: "Review !`git diff`", AllowedTools: []string{"Read"}},
	}
	var mu sync.Mutex
	var used []string
	use := func(c customcmd.Command) {
		mu.Lock()
		// It comes before the prompt is sent.
		used = append(used, c.Name+":"+c.Model+":"+strconv.Itoa(len(rec.rounds())))
		mu.Unlock()
	}
	h.m.cfg.Session = struct {
		bare
		ShellRunner
		CustomUser
	}{bare{}, shellFunc(sh.run), customFunc(use)}
	h.send("/commit the fix")
	h.send("plain prompt")
	h.typeText("/review")
	h.enter()
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	runCmds(cmd, h.msgs)
	h.pumpUntil(isFunc)
	h.pumpUntil(isDone)
	mu.Lock()
	defer mu.Unlock()
	if len(used) != 2 || used[0] != "commit:small:0" || used[1] != "review::2" {
		t.Errorf("used %v", used)
	}
}
