package sandbox

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkStart measures starting and waiting for /bin/true: directly,
// guarded (every shell command: the token, the registration), and guarded
// under the read-only profile (auto-approved commands: Landlock and the
// socket filter on a discarded thread, as the shell does, or through the
// helper's re-exec, for comparison).
func BenchmarkStart(b *testing.B) {
	tmp := b.TempDir()
	ro := ReadOnlyPolicy(tmp)
	for _, bc := range []struct {
		name  string
		start func(*exec.Cmd) error
	}{
		{"direct", (*exec.Cmd).Start},
		{"guarded", func(c *exec.Cmd) error { Guard(c); return c.Start() }},
		{"guarded+readonly", func(c *exec.Cmd) error { Guard(c); return Start(c, ro) }},
		{"guarded+readonly-helper", func(c *exec.Cmd) error { Guard(c); return startThroughHelper(c, ro) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if strings.HasPrefix(bc.name, "guarded+readonly") {
				if err := ReadOnlyAvailable(); err != nil {
					b.Skip(err)
				}
			}
			// The CPU time the started processes used: unlike the
			// wall time, it does not grow with the machine's load.
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				if err := bc.start(cmd); err != nil {
					b.Fatal(err)
				}
				Track(cmd.Process.Pid)
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
