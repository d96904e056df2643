//go:build linux

package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// The guardian is ply's own binary and lives as long as ply: any command
// of the same user can read its /proc/PID/environ, so it must start with
// no environment but the helper's switch, never with ply's API keys.
func TestGuardianEnvironmentHoldsNoSecrets(t *testing.T) {
	t.Setenv("GUARDIAN_TEST_API_KEY", "sk-guardian-must-not-hold")
	g, err := startGuardian()
	if err != nil {
		t.Fatal(err)
	}
	defer g.w.Close() // the guardian ends when its pipe does
	env, err := os.ReadFile("/proc/" + strconv.Itoa(g.pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "sk-guardian-must-not-hold") {
		t.Errorf("the guardian's environment holds ply's secret: %q", strings.ReplaceAll(string(env), "\x00", " "))
	}
}
