package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/sandbox"
)

// BenchmarkShellStart measures a whole foreground call of `true`: plain,
// under the read-only profile (Landlock, the socket filter, the private
// temporary directory), and in auto mode's workspace sandbox (the same,
// with the per-project cache directory and environment).
func BenchmarkShellStart(b *testing.B) {
	_, ws := searchTestWorkspace(b, map[string]string{"f": "x"})
	sh := NewShell(ws)
	sh.SetCacheDir(b.TempDir())
	b.Cleanup(func() { sh.Close() })
	args := json.RawMessage(`{"command":"true"}`)
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{
		{"plain", context.Background()},
		{"confined", WithConfinement(context.Background(), ConfineReadOnly)},
		{"workspace", WithConfinement(context.Background(), ConfineWorkspace)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := sh.Execute(bc.ctx, args, nil)
				if err != nil || !strings.Contains(res.Output, "Exit code: 0") {
					b.Fatalf("%v %s", err, res.Output)
				}
			}
		})
	}
}

// BenchmarkShellGoTest measures `go test -count=1 ./...` of a small
// module as one shell call: unconfined (yolo, the user's own build cache)
// and in auto mode's workspace sandbox (its per-project build cache). The
// first call fills the sandbox's cache, which the loop's warm-up absorbs:
// what is measured is a warm cache either way; the cold first run is
// reported in BENCHMARKS.md.
func BenchmarkShellGoTest(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("no go on PATH")
	}
	_, ws := searchTestWorkspace(b, map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.22\n",
		"m.go":      "package m\n\nfunc Add(a, b int) int { return a + b }\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
	})
	sh := NewShell(ws)
	cache := os.Getenv("PLY_BENCH_SANDBOX_CACHE") // reuse a warm cache across runs
	if cache == "" {
		cache = b.TempDir()
	}
	sh.SetCacheDir(cache)
	b.Cleanup(func() { sh.Close() })
	args := json.RawMessage(`{"command":"go test -count=1 ./...","timeout":600000}`)
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{
		{"yolo", context.Background()},
		{"auto", WithConfinement(context.Background(), ConfineWorkspace)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.name == "auto" {
				if err := sandbox.ReadOnlyAvailable(); err != nil {
					b.Skip(err)
				}
			}
			run := func() {
				res, err := sh.Execute(bc.ctx, args, nil)
				if err != nil || !strings.Contains(res.Output, "Exit code: 0") {
					b.Fatalf("%v %s", err, res.Output)
				}
			}
			run() // warm the build cache
			for b.Loop() {
				run()
			}
		})
	}
}
