package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkShellStart measures a whole foreground call of `true`: plain,
// and under the read-only profile (the helper's re-exec, Landlock, the
// socket filter, the private temporary directory).
func BenchmarkShellStart(b *testing.B) {
	_, ws := searchTestWorkspace(b, map[string]string{"f": "x"})
	sh := NewShell(ws)
	b.Cleanup(func() { sh.Close() })
	args := json.RawMessage(`{"command":"true"}`)
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{
		{"plain", context.Background()},
		{"confined", WithConfinement(context.Background(), ConfineReadOnly)},
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
