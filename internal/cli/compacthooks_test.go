package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/core"
	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// /compress (Chat.Compress, as the TUI calls it) runs the PreCompact and
// PostCompact hooks of the settings.
func TestCompactHooksFire(t *testing.T) {
	dir, home, scripts := t.TempDir(), filepath.Join(t.TempDir(), "home"), t.TempDir()
	log := filepath.Join(scripts, "compact.log")
	hook := hookScript(t, scripts, "compact.sh", `cat >> `+log+`; echo >> `+log)
	writeHookSettings(t, home, map[string]any{
		"PreCompact":  []any{map[string]any{"matcher": "manual", "hooks": []any{map[string]any{"command": hook}}}},
		"PostCompact": []any{map[string]any{"hooks": []any{map[string]any{"command": hook}}}},
	})
	srv := fp.New(t,
		fp.Turn{fp.Text("first answer " + strings.Repeat("words ", 50))},
		fp.Turn{fp.Text("second answer " + strings.Repeat("words ", 50))},
		fp.Turn{fp.Text("THE SUMMARY")},
	)
	for _, p := range []string{"first " + strings.Repeat("q ", 100), "second " + strings.Repeat("q ", 100)} {
		args := []string{"-p", p}
		if strings.HasPrefix(p, "second") {
			args = append([]string{"--continue"}, args...)
		}
		if r := runPlyHome(t, dir, home, srv, args...); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "PLY_HOME": home}
	c, errb := testCore(t, dir, env, "--continue", "-p", "x")
	if _, ok := c.Chat().Compress(context.Background()); !ok {
		t.Fatalf("nothing compressed; stderr %s", errb.String())
	}
	got, _ := os.ReadFile(log)
	for _, want := range []string{`"hook_event_name":"PreCompact"`, `"trigger":"manual"`, `"hook_event_name":"PostCompact"`, `"compact_summary":"THE SUMMARY"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("hook inputs lack %s:\n%s", want, got)
		}
	}
}

// testCore builds the session core as a run with args would, in dir with
// the environment env, for tests that drive it directly; it is closed
// when the test ends. The buffer holds what ply wrote to stderr.
func testCore(t *testing.T, dir string, env map[string]string, args ...string) (*core.Session, *bytes.Buffer) {
	t.Helper()
	errb := &bytes.Buffer{}
	sio := IO{Stdin: strings.NewReader(""), StdinIsTTY: true, Stdout: io.Discard, Stderr: errb, Getenv: func(k string) string { return env[k] }, Cwd: dir}
	opts, err := Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := resolve(opts, sio)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := core.New(context.Background(), cfg.coreConfig(sio), errb, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, errb
}
