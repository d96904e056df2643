package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/info"
)

type endpointModels func(ctx context.Context) ([]string, error)

func (f endpointModels) EndpointModels(ctx context.Context) ([]string, error) { return f(ctx) }

// runCmd runs what a command returned as Bubble Tea would, feeding the
// message of an asynchronous step back into the model.
func (h *harness) runCmd(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	if msg := cmd(); msg != nil {
		if f, ok := msg.(funcMsg); ok {
			h.update(f)
		}
	}
}

// TestModelCommandListsEndpointModels: /model adds the endpoint's models
// to the configured ones; a listed model switches without --force, by
// name or number; an unlisted one is still refused with the closest; a
// failed list says why in one line and the configured list still works.
func TestModelCommandListsEndpointModels(t *testing.T) {
	h := newHarness(t, nil, nil)
	var set []string
	listErr := error(nil)
	h.m.cfg.Session = struct {
		*session
		ModelLister
		EndpointModelLister
	}{&session{setModel: func(name string) error { set = append(set, name); return nil }},
		modelsFunc(func() []info.Model { return []info.Model{{ID: "test-model"}} }),
		endpointModels(func(context.Context) ([]string, error) {
			if listErr != nil {
				return nil, listErr
			}
			return []string{"gpt-4.1", "gpt-4.1-mini", "test-model"}, nil
		})}
	h.runCmd(h.m.pickModel(""))
	if p := h.printed(); !strings.Contains(p, "1. test-model  (current)\n  2. gpt-4.1\n  3. gpt-4.1-mini") || !strings.Contains(p, "(3 served by the endpoint)") {
		t.Fatalf("list:\n%s", p)
	}
	h.runCmd(h.m.pickModel("gpt-4.1-mini"))
	h.runCmd(h.m.pickModel("2"))
	h.runCmd(h.m.pickModel("gpt-4.2"))
	if got := strings.Join(set, ","); got != "gpt-4.1-mini,gpt-4.1" {
		t.Fatalf("switched to %s", got)
	}
	if p := h.printed(); !strings.Contains(p, "✗ gpt-4.2 is not a model this endpoint lists: did you mean gpt-4.1") || !strings.Contains(p, "/model --force gpt-4.2") {
		t.Fatalf("unlisted model not refused:\n%s", p)
	}
	listErr = errors.New("the endpoint refused to list its models (HTTP 401): check the API key")
	h.runCmd(h.m.pickModel(""))
	h.runCmd(h.m.pickModel("gpt-4.1-mini"))
	if len(set) != 2 {
		t.Fatalf("switched without a list: %v", set)
	}
	if p := h.printed(); strings.Count(p, "(HTTP 401): check the API key") != 2 {
		t.Fatalf("the failure is not said:\n%s", p)
	}
}
