package cli

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files")

// TestGoldenToolDeclarations pins the tool declarations the model is sent
// in the first request of a headless run in each approval mode: their
// names, order, descriptions and schemas. A change to what the model
// reads is a reviewed diff of testdata/golden, not an accident (the
// system prompt's are pinned in internal/sysprompt). Run with -update to
// rewrite them.
func TestGoldenToolDeclarations(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"default-headless", nil},
		{"yolo-headless", []string{"-y"}},
		{"plan-headless", []string{"--approval-mode", "plan"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			srv := fp.New(t, fp.Turn{fp.Text("ok")})
			if r := runPly(t, dir, srv, "", append(c.args, "-p", "hi")...); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			b, err := json.MarshalIndent(srv.Requests()[0].Body["tools"], "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(string(b), dir, "/WORKSPACE") + "\n"
			path := filepath.Join("testdata", "golden", "tools-"+c.name+".json")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGoldenToolDeclarations -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("the tool declarations changed; review the diff and run with -update:\n%s", firstDiff(string(want), got))
			}
		})
	}
}

// firstDiff shows the first line where want and got differ, with its
// neighbours.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n- " + wl + "\n+ " + gl
		}
	}
	return "(no line differs)"
}
