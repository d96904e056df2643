package cli

import (
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/info"
)

// doctorSession builds the session of a -p run in a fresh folder with
// env and the user's settings file, for /doctor.
func doctorSession(t *testing.T, env map[string]string, userSettings string) *core.Session {
	t.Helper()
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFile(t, filepath.Join(home, "settings.json"), userSettings, 0o644)
	env["PLY_HOME"] = home
	sio := IO{Stdin: strings.NewReader(""), StdinIsTTY: true, Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string { return env[k] }, Cwd: dir}
	opts, err := Parse([]string{"-p", "x"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := resolve(opts, sio)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := core.New(context.Background(), cfg.coreConfig(sio), io.Discard, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func findCheck(t *testing.T, checks []info.Check, name string) info.Check {
	t.Helper()
	for _, c := range checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %q check in %+v", name, checks)
	return info.Check{}
}

func TestDoctor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const key = "sk-doctor-secret"
	c := doctorSession(t, map[string]string{"OPENAI_API_KEY": key, "OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://" + ln.Addr().String() + "/v1"},
		`{"approvalMod": "yolo", "hooks": {"PreToolUs": []}}`)
	checks := c.Doctor(context.Background())
	for _, ch := range checks {
		if strings.Contains(ch.Detail+ch.Fix, key) {
			t.Fatalf("the check %q shows the API key: %+v", ch.Name, ch)
		}
	}
	p := findCheck(t, checks, "provider")
	if p.Status != info.CheckOK || !strings.Contains(p.Detail, "openai wire format, model m, endpoint http://"+ln.Addr().String()+"/v1") ||
		!strings.Contains(p.Detail, "API key from OPENAI_API_KEY") {
		t.Errorf("provider: %+v", p)
	}
	if r := findCheck(t, checks, "endpoint reachable"); r.Status != info.CheckOK || !strings.Contains(r.Detail, "connected to "+ln.Addr().String()) {
		t.Errorf("a listening endpoint: %+v", r)
	}
	if s := findCheck(t, checks, "settings"); s.Status != info.CheckWarn || !strings.Contains(s.Detail, "approvalMod") || !strings.Contains(s.Detail, "approvalMode") {
		t.Errorf("a misspelt key: %+v", s)
	}
	if h := findCheck(t, checks, "hooks"); h.Status != info.CheckWarn || !strings.Contains(h.Detail, `"PreToolUs"`) || !strings.Contains(h.Detail, `"PreToolUse"`) {
		t.Errorf("a misspelt hook event: %+v", h)
	}
	if h := findCheck(t, checks, "ply home"); h.Status == info.CheckFail || !strings.Contains(h.Detail, "takes writes") {
		t.Errorf("ply home: %+v", h)
	}
	findCheck(t, checks, "sandbox")
	findCheck(t, checks, "folder trust")
	findCheck(t, checks, "git")
	if v := findCheck(t, checks, "ply"); !strings.Contains(v.Detail, Version) || !strings.Contains(v.Detail, "go1.") {
		t.Errorf("ply: %+v", v)
	}

	// Nothing listens on a port just closed.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := closed.Addr().String()
	closed.Close()
	c = doctorSession(t, map[string]string{"OPENAI_API_KEY": key, "OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://" + addr + "/v1"}, `{}`)
	r := findCheck(t, c.Doctor(context.Background()), "endpoint reachable")
	if r.Status != info.CheckFail || !strings.Contains(r.Detail, "cannot connect to "+addr) || r.Fix == "" {
		t.Errorf("a closed endpoint: %+v", r)
	}
}
