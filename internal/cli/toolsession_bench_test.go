package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/plyhq/ply/internal/demoproject"
	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// toolSessionTurns is plybench's 10-round session: nine rounds of tool
// calls touching every kind of tool (edits and shell commands included,
// which take checkpoints), then the answer.
func toolSessionTurns(i int) []fp.Turn {
	rounds := demoproject.ToolRounds()
	var out []fp.Turn
	for r, calls := range rounds {
		var t fp.Turn
		for j, c := range calls {
			b, _ := json.Marshal(c.Args)
			t = append(t, fp.ToolCall(fmt.Sprintf("c%d_%d_%d", i, r, j), c.Name, string(b)))
		}
		out = append(out, t)
	}
	return append(out, fp.Turn{fp.Text(demoproject.FinalText)})
}

// toolSessionWorkspace writes the small Go module the session works on.
func toolSessionWorkspace(tb testing.TB, dir string) {
	if err := demoproject.Write(dir); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkToolSession runs plybench's 10-round session in-process, each
// iteration in a fresh workspace and a fresh PLY_HOME (so a new checkpoint
// store), so that where a round waits (checkpoints, syncs, the shell's
// guardian) shows in -trace and -cpuprofile without process start-up.
func BenchmarkToolSession(b *testing.B) {
	srv := fp.NewServer()
	defer srv.Close()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir, home := b.TempDir(), b.TempDir()
		toolSessionWorkspace(b, dir)
		env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
		srv.Append(toolSessionTurns(i)...)
		b.StartTimer()
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"-y", "-p", "tidy the demo project"}, IO{StdinIsTTY: true, Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return env[k] }, Cwd: dir})
		if code != 0 || out.String() != "Done.\n" {
			b.Fatalf("exit %d, stdout %q: %s", code, out.String(), errb.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10, "ns/round")
}
