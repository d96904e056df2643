package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkStart measures starting and waiting for /bin/true: directly,
// through the helper with the guardian (every shell command), and under
// the read-only profile too (auto-approved commands).
func BenchmarkStart(b *testing.B) {
	tmp := b.TempDir()
	ro := ReadOnlyPolicy(tmp)
	for _, bc := range []struct {
		name string
		prep func(*exec.Cmd) error
	}{
		{"direct", func(*exec.Cmd) error { return nil }},
		{"guarded", func(c *exec.Cmd) error { return Guard(c, nil) }},
		{"guarded+readonly", func(c *exec.Cmd) error { return Guard(c, &ro) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.name == "guarded+readonly" {
				if err := ReadOnlyAvailable(); err != nil {
					b.Skip(err)
				}
			}
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				if err := bc.prep(cmd); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
