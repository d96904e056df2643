package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/llm"
)

// /compress with focus text gives it to PreCompact as custom_instructions;
// the SessionStart hooks run with source "compact" and their context goes
// out with the next request.
func TestCompactSessionStartAndInstructions(t *testing.T) {
	dir, home, scripts := t.TempDir(), filepath.Join(t.TempDir(), "home"), t.TempDir()
	log := filepath.Join(scripts, "pre.log")
	pre := hookScript(t, scripts, "pre.sh", `cat >> `+log)
	start := hookScript(t, scripts, "start.sh", `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"RE-READ CONTRIBUTING.md"}}'`)
	writeHookSettings(t, home, map[string]any{
		"PreCompact":   []any{map[string]any{"hooks": []any{map[string]any{"command": pre}}}},
		"SessionStart": []any{map[string]any{"matcher": "compact", "hooks": []any{map[string]any{"command": start}}}},
	})
	srv := fp.New(t,
		fp.Turn{fp.Text("first answer " + strings.Repeat("words ", 50))},
		fp.Turn{fp.Text("second answer " + strings.Repeat("words ", 50))},
		fp.Turn{fp.Text("THE SUMMARY")},
		fp.Turn{fp.Text("after")},
	)
	for i, p := range []string{"first " + strings.Repeat("q ", 100), "second " + strings.Repeat("q ", 100)} {
		args := []string{"-p", p}
		if i > 0 {
			args = append([]string{"--continue"}, args...)
		}
		if r := runPlyHome(t, dir, home, srv, args...); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	c, errb := testCore(t, dir, env, "--continue", "-p", "x")
	if _, ok := c.Chat().CompressWith(context.Background(), "keep the parser details"); !ok {
		t.Fatalf("nothing compressed; stderr %s", errb.String())
	}
	got, _ := os.ReadFile(log)
	if !strings.Contains(string(got), `"custom_instructions":"keep the parser details"`) {
		t.Errorf("PreCompact input: %s", got)
	}
	for _, err := range c.Chat().SendMessageStream(context.Background(), llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "go on"}}}) {
		if err != nil {
			t.Fatalf("next request: %v", err)
		}
	}
	reqs := srv.Requests()
	summary, next := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if !strings.Contains(string(summary.Raw), "keep the parser details") {
		t.Error("the summary prompt lacks the instructions")
	}
	if !strings.Contains(string(next.Raw), "RE-READ CONTRIBUTING.md") {
		t.Errorf("the next request lacks the SessionStart context: %s", next.Raw)
	}
}
