package tools

import (
	"strings"
	"testing"
)

// A command sees neither the provider's key nor other secret-looking
// variables, with no environment given (the default policy) or with one.
func TestShellWithholdsSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-shell-test-secret")
	t.Setenv("PLY_TEST_PLAIN", "plain-value")
	sh, _ := shellTestTool(t)
	res := searchTestRun(t, sh, map[string]any{"command": "printenv OPENAI_API_KEY; echo plain=$PLY_TEST_PLAIN"})
	if strings.Contains(res.Output, "sk-shell-test-secret") || !strings.Contains(res.Output, "plain=plain-value") {
		t.Fatalf("default environment: %s", res.Output)
	}

	sh.SetEnv([]string{"PATH=/usr/bin:/bin", "ONLY=this"})
	res = searchTestRun(t, sh, map[string]any{"command": "printenv OPENAI_API_KEY; echo only=$ONLY plain=$PLY_TEST_PLAIN pager=$PAGER"})
	if strings.Contains(res.Output, "sk-shell-test-secret") || !strings.Contains(res.Output, "only=this plain= pager=cat") {
		t.Fatalf("set environment: %s", res.Output)
	}
}
