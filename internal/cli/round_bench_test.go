package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// BenchmarkTenRoundSession runs a whole 10-round session in-process (nine
// list_directory rounds and a text answer), so the per-round cost of the
// framework can be profiled with -cpuprofile without process start-up.
func BenchmarkTenRoundSession(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	srv := fp.NewServer()
	defer srv.Close()
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var turns []fp.Turn
		for r := 0; r < 9; r++ {
			turns = append(turns, fp.Turn{fp.ToolCall(fmt.Sprintf("c%d_%d", i, r), "list_directory", fmt.Sprintf(`{"path":".","ignore":["x%d"]}`, r))})
		}
		turns = append(turns, fp.Turn{fp.Text("done")})
		srv.Append(turns...)
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"-y", "-p", "go"}, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return env[k] }, Cwd: dir})
		if code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10, "ns/round")
}
