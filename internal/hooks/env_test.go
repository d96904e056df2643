package hooks

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A hook, given no environment, gets ply's without the secrets.
func TestHookEnvWithholdsSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-hook-test-secret")
	t.Setenv("PLY_TEST_PLAIN", "plain-value")
	e := newEnv(t)
	cmd := e.script("env.sh", `env > "$PLY_PROJECT_DIR/env.txt"`)
	r := e.runner(one(Stop, "", cmd, 5*time.Second))
	if _, err := r.Run(context.Background(), Stop, Input{}); err != nil {
		t.Fatal(err)
	}
	got := e.readFile("env.txt")
	if strings.Contains(got, "sk-hook-test-secret") || !strings.Contains(got, "PLY_TEST_PLAIN=plain-value") {
		t.Fatalf("hook environment:\n%s", got)
	}
}
