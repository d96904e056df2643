package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestCostCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.stats.usage = llm.Usage{InputTokens: 1200, CachedTokens: 200, OutputTokens: 340}
	h.m.stats.rounds = 3
	h.m.cfg.Session = struct {
		bare
		Differ
	}{bare{}, diffFunc(func(context.Context) (Changes, error) {
		return Changes{Files: []FileChange{
			{Op: 'M', Path: "a.go", Old: "one\ntwo\nthree\n", New: "one\n2\nthree\nfour\n"},
			{Op: '+', Path: "b.txt", New: "x\ny\n"},
			{Op: '-', Path: "logo.png", Binary: true},
		}}, nil
	})}
	h.runCommand("/cost")
	p := h.printed()
	for _, want := range []string{
		"Session cost:",
		"cost        unknown: no price is known for",
		"tokens      1200 in (200 cached), 340 out",
		"3 model round(s)",
		"changes     4 line(s) added, 1 removed, in 3 file(s) (1 not counted: binary or over the checkpoint size cap)",
	} {
		if !strings.Contains(flat(p), flat(want)) { // long lines break between words
			t.Errorf("/cost lacks %q:\n%s", want, p)
		}
	}

	h.m.stats.priced, h.m.stats.cost = true, 0.1234
	h.m.cfg.Session = struct {
		bare
		Differ
	}{bare{}, diffFunc(func(context.Context) (Changes, error) { return Changes{}, errors.New("checkpoints are off") })}
	h.runCommand("/cost")
	p = h.printed()
	for _, want := range []string{"cost        ~$0.12", "changes     unknown: checkpoints are off"} {
		if !strings.Contains(p, want) {
			t.Errorf("/cost lacks %q:\n%s", want, p)
		}
	}
}
