package cli

import (
	"bytes"
	"testing"
)

// -i/--prompt-interactive opens the terminal UI with its prompt sent
// first; off a terminal, or with -p, it is a usage error.
func TestPromptInteractive(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "PLY_HOME": t.TempDir()}
	run := func(tty bool, args ...string) (*config, int, error) {
		t.Helper()
		return resolveArgs(t, env, tty, args...)
	}
	for _, args := range [][]string{{"-i", "explain this repo"}, {"--prompt-interactive", "explain this repo"}} {
		c, _, err := run(true, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !c.interactive || c.prompt != "explain this repo" {
			t.Fatalf("%v: interactive %v, prompt %q; want the UI with the prompt sent first", args, c.interactive, c.prompt)
		}
	}
	if _, code, err := run(false, "-i", "x"); err == nil || code != 42 {
		t.Fatalf("-i off a terminal: exit %d, %v; want a usage error", code, err)
	}
	if _, code, err := run(true, "-i", "x", "-p", "y"); err == nil || code != 42 {
		t.Fatalf("-i with -p: exit %d, %v; want a usage error", code, err)
	}
}

// resolveArgs parses args and resolves them as ply would started with the
// environment env, its input and output a terminal or not (tty).
func resolveArgs(t *testing.T, env map[string]string, tty bool, args ...string) (*config, int, error) {
	t.Helper()
	opts, err := Parse(args)
	if err != nil {
		t.Fatalf("Parse %v: %v", args, err)
	}
	var errb bytes.Buffer
	sio := IO{StdinIsTTY: tty, StdoutIsTTY: tty, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Cwd: t.TempDir()}
	return resolve(opts, sio)
}
