package cli

import (
	"strings"
	"testing"
)

// In a terminal, -c and -r ID with no prompt open the interactive UI on
// that session; -i with -c sends its prompt from the UI. Off a terminal
// they stay headless, and a positional prompt always means headless.
func TestEntryInteractiveResume(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "PLY_HOME": t.TempDir()}
	run := func(tty bool, args ...string) (*config, error) {
		t.Helper()
		c, _, err := resolveArgs(t, env, tty, args...)
		return c, err
	}
	for _, args := range [][]string{{"-c"}, {"--continue"}, {"-r", "0b4f6f2e-6c1c-4c43-9d43-111111111111"}, {"-c", "-i", "go on"}} {
		c, err := run(true, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !c.interactive || !c.promptLater {
			t.Errorf("%v in a terminal: interactive %v, promptLater %v; want the UI on the session", args, c.interactive, c.promptLater)
		}
	}
	for _, args := range [][]string{{"-c"}, {"-c", "go on"}, {"-r", "x", "-p", "go on"}} {
		c, err := run(args[0] == "-c" && len(args) > 1, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if c.interactive {
			t.Errorf("%v: interactive; want headless", args)
		}
	}
	if !strings.Contains(usage(), "ply -c") || !strings.Contains(usage(), "headless") {
		t.Errorf("--help does not say how the UI opens and that a prompt means headless:\n%s", usage()[:600])
	}
}
