package sandbox

import (
	"strings"
	"testing"
)

// Where the system has no sandbox ply can use, the refusal names the
// system, so that the user knows why commands ask or are refused.
func TestNoSandboxNamesThePlatform(t *testing.T) {
	err := noSandbox("windows")
	if err == nil || !strings.Contains(err.Error(), "Windows") || !strings.Contains(err.Error(), "Landlock") {
		t.Fatalf("noSandbox(windows) = %v", err)
	}
}
