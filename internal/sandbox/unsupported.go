package sandbox

import (
	"fmt"
	"strings"
)

// noSandbox is why commands cannot be confined on goos: ply knows
// Landlock (Linux) and Seatbelt (macOS) only.
func noSandbox(goos string) error {
	name := map[string]string{"windows": "Windows", "freebsd": "FreeBSD", "openbsd": "OpenBSD", "netbsd": "NetBSD"}[goos]
	if name == "" && goos != "" {
		name = strings.ToUpper(goos[:1]) + goos[1:]
	}
	return fmt.Errorf("sandbox: %s has no kernel sandbox ply can use (ply confines commands with Landlock on Linux and Seatbelt on macOS)", name)
}
