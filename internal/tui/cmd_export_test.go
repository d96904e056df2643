package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/llm"
)

var sampleHistory = []llm.Message{
	{Role: llm.RoleUser, Parts: []llm.Part{{Text: "list the files"}}},
	{Role: llm.RoleModel, Parts: []llm.Part{{Text: "hmm", Thought: true}, {Text: "Let me look."}, {Call: &llm.FunctionCall{ID: "c1", Name: "list_directory", Args: `{"path":"."}`}}}},
	{Role: llm.RoleUser, Parts: []llm.Part{{Response: &llm.FunctionResponse{ID: "c1", Name: "list_directory", Output: "a.go\nb.go"}}}},
	{Role: llm.RoleModel, Parts: []llm.Part{{Text: "There are **two** files: `a.go` and `b.go`."}}},
}

func TestExportCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	root := t.TempDir()
	h.m.cfg.Root = root
	h.m.cfg.Session = struct {
		bare
		Conversation
	}{bare{}, messagesFunc(func() []llm.Message { return sampleHistory })}
	h.m.cfg.Extra.Now = func() time.Time { return time.Date(2026, 12, 3, 17, 5, 9, 0, time.UTC) }
	h.typeText("/export")
	h.enter()
	path := filepath.Join(root, "ply-conversation-2026-12-03-170509.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no default export file: %v\n%s", err, h.printed())
	}
	for _, want := range []string{"## User\n\nlist the files", "## Assistant\n\nLet me look.", "**Tool call** `list_directory`\n\n```\n{\"path\":\".\"}\n```",
		"**Result** of `list_directory`\n\n```\na.go\nb.go\n```", "There are **two** files"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("export lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "hmm") {
		t.Error("the export has the model's thoughts")
	}
	if !strings.Contains(flat(h.printed()), "written to "+path) { // wrapped at spaces
		t.Errorf("not told where:\n%s", h.printed())
	}
	// A named file, relative to the workspace.
	h.typeText("/export notes/chat.md")
	h.enter()
	if !strings.Contains(h.printed(), "✗ exporting the conversation") {
		t.Errorf("a missing folder was not reported:\n%s", h.printed())
	}
	h.typeText("/export chat.md")
	h.enter()
	if _, err := os.Stat(filepath.Join(root, "chat.md")); err != nil {
		t.Fatal(err)
	}
}

func TestCopyCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.cfg.Session = struct {
		bare
		Conversation
	}{bare{}, messagesFunc(func() []llm.Message { return sampleHistory[:3] })}
	h.typeText("/copy")
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	msgs := make(chan tea.Msg, 8)
	runCmds(cmd, msgs)
	timeout := time.After(5 * time.Second)
	for {
		select {
		case msg := <-msgs:
			if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" && fmt.Sprint(msg) == "Let me look." {
				if !strings.Contains(h.printed(), "copied the last answer (12 characters) to the clipboard, by OSC 52") {
					t.Fatalf("not said:\n%s", h.printed())
				}
				return
			}
		case <-timeout:
			t.Fatal("no clipboard message with the last answer")
		}
	}
}

func TestDiffCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.cfg.Session = struct {
		bare
		Differ
	}{bare{}, diffFunc(func(context.Context) (Changes, error) {
		return Changes{Files: []FileChange{
			{Op: 'M', Path: "main.go", Old: "package main\n\nfunc main() {}\n", New: "package main\n\nfunc main() { run() }\n"},
			{Op: '+', Path: "new.txt", New: "hello\n"},
			{Op: '-', Path: "logo.png", Binary: true},
		}}, nil
	})}
	h.typeText("/diff")
	h.enter()
	h.pumpUntil(isFunc)
	p := h.printed()
	for _, want := range []string{"3 file(s) changed in this session:\nM main.go\n+ new.txt\n- logo.png", "3 - func main() {}\n3 + func main() { run() }", "1 + hello", "logo.png  (binary)"} {
		if !strings.Contains(p, want) {
			t.Errorf("/diff lacks %q:\n%s", want, p)
		}
	}
	h.m.cfg.Session = struct {
		bare
		Differ
	}{bare{}, diffFunc(func(context.Context) (Changes, error) {
		return Changes{Files: []FileChange{{Op: 'M', Path: "saved.go", Old: "a\n", New: "b\n"}}, Partial: true}, nil
	})}
	h.typeText("/diff")
	h.enter()
	h.pumpUntil(isFunc)
	if p := h.printed(); !strings.Contains(p, "first checkpoint was never stored whole") || !strings.Contains(p, "1 file(s) changed in this session:\nM saved.go") {
		t.Errorf("a partial first checkpoint is not said to be partial:\n%s", p)
	}
	h.m.cfg.Session = struct {
		bare
		Differ
	}{bare{}, diffFunc(func(context.Context) (Changes, error) { return Changes{}, errors.New("no checkpoints") })}
	h.typeText("/diff")
	h.enter()
	h.pumpUntil(isFunc)
	if !strings.Contains(h.printed(), "✗ /diff: no checkpoints") {
		t.Errorf("error not shown:\n%s", h.printed())
	}
}
