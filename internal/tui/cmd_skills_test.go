package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/skills"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/turn"
)

func TestSkillCommands(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	rounds := roundsFunc(func(_ context.Context, parts []llm.Part, typ client.SendType) []turn.Event {
		mu.Lock()
		defer mu.Unlock()
		if typ == client.UserQuery {
			for _, p := range parts {
				sent = append(sent, p.Text)
			}
		}
		return []turn.Event{turn.Content{Text: "done"}, turn.Finished{}}
	})
	h := newHarness(t, rounds, nil)
	var invoked []string
	h.m.cfg.Session = struct {
		bare
		SkillRunner
	}{bare{}, skillSet{list: func() []SkillInfo {
		return []SkillInfo{{Name: "review", Description: "Review a branch\nmore", Path: "/home/u/.ply/skills/review/SKILL.md", Source: "user"}}
	}, invoke: func(name, args string) (string, error) {
		invoked = append(invoked, name+"|"+args)
		if args == "fail" {
			return "", errors.New("cannot today")
		}
		return "/review " + args + "\n\n<skill>REVIEW BODY</skill>", nil
	}}}

	h.typeText("/skills")
	h.press(tea.KeyEnter, 0)
	if p := h.printed(); !strings.Contains(p, "/review") || !strings.Contains(p, "Review a branch") || !strings.Contains(p, "user: /home/u/.ply/skills/review/SKILL.md") {
		t.Fatalf("/skills:\n%s", p)
	}
	if !strings.Contains((&model{}).helpText(), "/skills") {
		t.Error("/help does not list /skills")
	}

	h.typeText("/review main")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	mu.Lock()
	got := strings.Join(sent, "\n")
	mu.Unlock()
	if len(invoked) != 1 || invoked[0] != "review|main" || !strings.Contains(got, "REVIEW BODY") {
		t.Fatalf("invoked %v, sent %q", invoked, got)
	}
	if !strings.Contains(h.printed(), "/review main") {
		t.Errorf("the typed command is not shown:\n%s", h.printed())
	}

	h.typeText("/review fail")
	h.press(tea.KeyEnter, 0)
	if !strings.Contains(h.printed(), "cannot today") {
		t.Errorf("error not shown:\n%s", h.printed())
	}
	h.typeText("/reviews")
	h.press(tea.KeyEnter, 0)
	if !strings.Contains(h.printed(), "unknown command /reviews") {
		t.Errorf("a near name ran the skill:\n%s", h.printed())
	}
}

// /name with a skill on disk: the prompt carries its instructions and
// its folder is readable afterwards.
func TestSkillFromDiskByName(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "skills", "deploy")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\nname: deploy\ndescription: Deploy to staging.\n---\nRun ./deploy.sh $ARGUMENTS from this folder.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, errs := skills.Load([]skills.Root{{Dir: filepath.Join(root, "skills"), Source: "user"}})
	if len(errs) != 0 || len(list) != 1 {
		t.Fatalf("%v %v", list, errs)
	}
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	set := skills.NewSet(list, ws, nil)
	var mu sync.Mutex
	var sent string
	h := newHarness(t, roundsFunc(func(_ context.Context, parts []llm.Part, _ client.SendType) []turn.Event {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range parts {
			sent += p.Text
		}
		return []turn.Event{turn.Finished{}}
	}), nil)
	h.m.cfg.Session = struct {
		bare
		SkillRunner
	}{bare{}, skillSet{list: func() []SkillInfo { return []SkillInfo{{Name: "deploy"}} }, invoke: set.Invoke}}
	if _, err := ws.ResolveRead(filepath.Join(d, "deploy.sh")); err == nil {
		t.Fatal("the skill's folder is readable before /deploy")
	}
	h.typeText("/deploy --canary")
	h.press(tea.KeyEnter, 0)
	h.pumpUntil(isDone)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(sent, "Run ./deploy.sh --canary from this folder.") || !strings.HasPrefix(sent, "/deploy --canary") {
		t.Errorf("sent %q", sent)
	}
	if _, err := ws.ResolveRead(filepath.Join(d, "deploy.sh")); err != nil {
		t.Errorf("the skill's folder is not readable after /deploy: %v", err)
	}
}
