package cli

import (
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
