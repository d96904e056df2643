package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// configOption finds the select option id among opts.
func configOption(opts []sdk.SessionConfigOption, id string) *sdk.SessionConfigOptionSelect {
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return o.Select
		}
	}
	return nil
}

// waitUpdate waits until an update holding want has come.
func (r *acpRun) waitUpdate(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.client.mu.Lock()
		got := strings.Join(r.client.updates, "\n")
		r.client.mu.Unlock()
		if strings.Contains(got, want) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no update with %s came", want)
	return ""
}

// A session lists its commands, models and options; the client picks
// the model and the effort, and runs /compress as a prompt.
func TestACPCommandsModelsAndOptions(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("one")}, fp.Turn{fp.Text("two")}, fp.Turn{fp.Text("three")})
	r := startACP(t, srv, filepath.Join(t.TempDir(), "home"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)

	if ns.Models == nil || ns.Models.CurrentModelId != "test-model" || len(ns.Models.AvailableModels) == 0 {
		t.Fatalf("session/new models = %+v", ns.Models)
	}
	for id, current := range map[string]string{"mode": "default", "model": "test-model", "effort": "default"} {
		o := configOption(ns.ConfigOptions, id)
		if o == nil || string(o.CurrentValue) != current {
			t.Errorf("config option %s = %+v, want current %s", id, o, current)
		}
	}
	got := r.waitUpdate(t, `"sessionUpdate":"available_commands_update"`)
	if !strings.Contains(got, `"name":"compress"`) {
		t.Errorf("available commands lack compress:\n%s", got)
	}

	// The model from the unstable method, the effort from a config
	// option: both reach the next request.
	if _, err := r.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: ns.SessionId, ModelId: "other-model"}); err != nil {
		t.Fatalf("session/set_model: %v", err)
	}
	resp, err := r.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: ns.SessionId, ConfigId: "effort", Value: "high"}})
	if err != nil {
		t.Fatalf("session/set_config_option: %v", err)
	}
	if o := configOption(resp.ConfigOptions, "effort"); o == nil || o.CurrentValue != "high" {
		t.Errorf("effort after setting it: %+v", o)
	}
	if o := configOption(resp.ConfigOptions, "model"); o == nil || o.CurrentValue != "other-model" {
		t.Errorf("model after set_model: %+v", o)
	}
	if _, err := r.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: ns.SessionId, ConfigId: "effort", Value: "extreme"}}); err == nil {
		t.Error("an unknown effort was taken")
	}
	if _, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Model != "other-model" || req.Body["reasoning_effort"] != "high" {
		t.Errorf("request model %q, reasoning_effort %v; want other-model, high", req.Model, req.Body["reasoning_effort"])
	}

	// The mode as a config option is the mode.
	if _, err := r.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: ns.SessionId, ConfigId: "mode", Value: "plan"}}); err != nil {
		t.Fatalf("mode as a config option: %v", err)
	}

	// A command runs in ply, not as a prompt to the model.
	r.client.seen()
	pr, err := r.conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/compress")}})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/compress: %+v, %v", pr, err)
	}
	if got := r.client.seen(); !strings.Contains(strings.ToLower(got), "compress") || !strings.Contains(got, `"sessionUpdate":"agent_message_chunk"`) {
		t.Errorf("/compress answered:\n%s", got)
	}
	for _, q := range srv.Requests() {
		if strings.Contains(string(q.Raw), `"content":"/compress"`) {
			t.Errorf("/compress went to the model as a prompt")
		}
	}
}

// The models offered are those the session's provider serves: another
// provider's model is neither listed nor taken (switching providers in a
// session is not done).
func TestACPModelsOfTheSessionsProvider(t *testing.T) {
	dir := t.TempDir()
	srv := fp.New(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"modelProviders": {
		"same": {"authType": "openai", "baseUrl": "` + srv.URL + `", "model": "same-model"},
		"other": {"authType": "anthropic", "model": "claude-x"}}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startACP(t, srv, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := r.newSession(t, ctx, dir)
	var ids []string
	for _, m := range ns.Models.AvailableModels {
		ids = append(ids, string(m.ModelId))
	}
	if strings.Join(ids, ",") != "test-model,same-model" {
		t.Errorf("models offered: %q, want test-model and same-model", ids)
	}
	if _, err := r.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: ns.SessionId, ModelId: "claude-x"}); err == nil {
		t.Error("another provider's model was taken")
	}
	if _, err := r.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: ns.SessionId, ModelId: "same-model"}); err != nil {
		t.Errorf("the same provider's model: %v", err)
	}
}
