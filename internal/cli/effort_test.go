package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// model.effort sets the reasoning tier every request carries; a tier ply
// does not know is a configuration error.
func TestEffortFromSettings(t *testing.T) {
	dir := t.TempDir()
	writeProjectSettings(t, dir, `{"model": {"effort": "Low"}}`)
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	r := runPly(t, dir, srv, "", "--trust-workspace", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Body["reasoning_effort"] != "low" {
		t.Fatalf("requests %d, reasoning_effort %v: want low", len(reqs), reqs[0].Body["reasoning_effort"])
	}

	writeProjectSettings(t, dir, `{"model": {"effort": "extreme"}}`)
	r = runPly(t, dir, fp.New(t), "", "--trust-workspace", "-p", "go")
	if r.code != 52 || !strings.Contains(r.stderr, "model.effort") {
		t.Fatalf("exit %d, stderr %q: want a configuration error naming model.effort", r.code, r.stderr)
	}
}

// The SDK's model list and set_model keep to the session's provider:
// another provider's model is neither listed nor taken.
func TestSDKModelsOfTheSessionsProvider(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	srv := fp.New(t)
	settings := `{"modelProviders": {
		"same": {"authType": "openai", "baseUrl": "` + srv.URL + `", "model": "same-model"},
		"other": {"authType": "gemini", "model": "gemini-x"}}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	p, code := startSDKHome(t, dir, home, srv)
	r := p.control("m1", map[string]any{"subtype": "get_available_models"})
	body, _ := r["response"].(map[string]any)
	var ids []string
	list, _ := body["models"].([]any)
	for _, m := range list {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	if strings.Join(ids, ",") != "m,same-model" {
		t.Errorf("get_available_models: %q, want m and same-model", ids)
	}
	if r := p.control("m2", map[string]any{"subtype": "set_model", "model": "gemini-x"}); r["subtype"] != "error" {
		t.Errorf("set_model to another provider's model answered %v", r)
	}
	if r := p.control("m3", map[string]any{"subtype": "set_model", "model": "same-model"}); r["subtype"] != "success" {
		t.Errorf("set_model to the same provider's model answered %v", r)
	}
	p.exitOf(code)
}
