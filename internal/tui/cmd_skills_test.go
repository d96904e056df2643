package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
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
	h.m.cfg.Skills = func() []SkillInfo {
		return []SkillInfo{{Name: "review", Description: "Review a branch\nmore", Path: "/home/u/.ply/skills/review/SKILL.md", Source: "user"}}
	}
	var invoked []string
	h.m.cfg.InvokeSkill = func(name, args string) (string, error) {
		invoked = append(invoked, name+"|"+args)
		if args == "fail" {
			return "", errors.New("cannot today")
		}
		return "/review " + args + "\n\n<skill>REVIEW BODY</skill>", nil
	}

	h.typeText("/skills")
	h.press(tea.KeyEnter, 0)
	if p := h.printed(); !strings.Contains(p, "/review") || !strings.Contains(p, "Review a branch") || !strings.Contains(p, "user: /home/u/.ply/skills/review/SKILL.md") {
		t.Fatalf("/skills:\n%s", p)
	}
	if !strings.Contains(helpText(), "/skills") {
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
