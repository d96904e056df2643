//go:build !linux

package sandbox

// maybeRunProbe does nothing: the probe is Linux's.
func maybeRunProbe() {}
