package tui

import (
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/info"
)

func TestModelCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	var set []string
	h.m.cfg.Session = struct {
		*session
		ModelLister
	}{&session{setModel: func(name string) error { set = append(set, name); return nil }}, modelsFunc(func() []info.Model {
		return []info.Model{{ID: "test-model"}, {ID: "gpt-4.1-mini"}, {ID: "claude-sonnet-4-5"}}
	})}
	run := func(s string) {
		h.typeText(s)
		h.enter()
	}
	run("/model")
	if p := h.printed(); !strings.Contains(p, "1. test-model  (current)\n  2. gpt-4.1-mini\n  3. claude-sonnet-4-5") {
		t.Fatalf("list:\n%s", p)
	}
	run("/model 2")
	run("/model gpt-4.1-mni")
	run("/model 9")
	run("/model claude-sonnet-4-5")
	run("/model totally-else")
	run("/model --force my-finetune")
	if got := strings.Join(set, ","); got != "gpt-4.1-mini,claude-sonnet-4-5,my-finetune" {
		t.Fatalf("set %s", got)
	}
	p := h.printed()
	for _, want := range []string{"✗ unknown model gpt-4.1-mni: did you mean gpt-4.1-mini?", "✗ no model number 9", "✗ unknown model totally-else (see /model for the list)",
		"/model --force totally-else sends it", "model set to my-finetune"} {
		if !strings.Contains(p, want) {
			t.Errorf("lacks %q:\n%s", want, p)
		}
	}
	if h.m.cfg.Model != "my-finetune" {
		t.Fatal(h.m.cfg.Model)
	}
}
