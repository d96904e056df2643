package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/info"
)

func TestDoctorCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.m.cfg.Session = struct {
		bare
		HealthChecker
	}{bare{}, doctorFunc(func(context.Context) []info.Check {
		return []info.Check{
			{Name: "provider", Detail: "openai wire format, model m"},
			{Name: "endpoint reachable", Status: info.CheckFail, Detail: "cannot connect to 127.0.0.1:1", Fix: "check the base URL"},
			{Name: "sandbox", Status: info.CheckWarn, Detail: "no Landlock"},
		}
	})}
	h.runCommand("/doctor")
	p := h.printed()
	for _, want := range []string{
		"ply doctor: 1 problem to fix",
		"✓ provider            openai wire format, model m",
		"✗ endpoint reachable  cannot connect to 127.0.0.1:1",
		"→ check the base URL",
		"! sandbox             no Landlock",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("/doctor lacks %q:\n%s", want, p)
		}
	}
}
