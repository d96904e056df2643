//go:build !linux

package envpolicy

// Protect does nothing on this system: see the Linux version.
func Protect() error { return nil }
