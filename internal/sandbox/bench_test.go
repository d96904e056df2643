//go:build unix

package sandbox

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkStart measures starting and waiting for /bin/true: directly,
// guarded (every shell command: the token, the registration), and guarded
// under the read-only profile (auto-approved commands: capabilities,
// Landlock and the system call filter on a discarded thread, as the shell
// does, or through the helper's re-exec, for comparison), --sandbox's, or
// auto mode's workspace profile (writes like --sandbox, reads confined
// like the read-only profile).
//
// Besides the wall time it reports CPU time, which does not grow with
// the machine's load: the started processes' (cpu-ns/op) and this
// process's own, all threads, the discarded ones included (self-cpu-ns/op):
// building the Landlock ruleset is spent there.
func BenchmarkStart(b *testing.B) {
	tmp := b.TempDir()
	ro := ReadOnlyPolicy(tmp)
	ro.ReadableDirs = []string{b.TempDir()}
	sb := Policy{WritableDirs: []string{b.TempDir(), tmp}, ScopeSignals: true}
	ws := b.TempDir()
	auto := WorkspacePolicy([]string{ws, tmp}, []string{ws})
	for _, bc := range []struct {
		name  string
		start func(*exec.Cmd) error
	}{
		{"direct", (*exec.Cmd).Start},
		{"guarded", func(c *exec.Cmd) error { Guard(c); return c.Start() }},
		{"guarded+readonly", func(c *exec.Cmd) error { Guard(c); return Start(c, ro) }},
		{"guarded+sandbox", func(c *exec.Cmd) error { Guard(c); return Start(c, sb) }},
		{"guarded+workspace", func(c *exec.Cmd) error { Guard(c); return Start(c, auto) }},
		{"guarded+readonly-helper", func(c *exec.Cmd) error { Guard(c); return startThroughHelper(c, ro) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if strings.HasPrefix(bc.name, "guarded+") {
				if err := ReadOnlyAvailable(); err != nil {
					b.Skip(err)
				}
			}
			var cpu time.Duration
			self := selfCPU()
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
			b.ReportMetric(float64((selfCPU()-self).Nanoseconds())/float64(b.N), "self-cpu-ns/op")
		})
	}
}

// selfCPU is the CPU time this process has used, all its threads
// together.
func selfCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
