package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkRuleset measures building the Landlock ruleset of each
// profile, the part of a confined start that grows with the number of
// readable paths.
func BenchmarkRuleset(b *testing.B) {
	abi, err := Available()
	if err != nil {
		b.Skip(err)
	}
	ro := ReadOnlyPolicy(b.TempDir())
	ro.ReadableDirs = []string{b.TempDir()}
	etcReadable() // found once per process, not per command
	for name, p := range map[string]Policy{"readonly": ro, "sandbox": {WritableDirs: []string{b.TempDir()}}} {
		b.Run(name, func(b *testing.B) {
			self := selfCPU()
			for b.Loop() {
				cfg, rules := ruleset(p, abi, nil)
				fd, _, err := cfg.NewRulesetFD(rules...)
				if err != nil {
					b.Fatal(err)
				}
				_ = unix.Close(fd)
			}
			b.ReportMetric(float64((selfCPU()-self).Nanoseconds())/float64(b.N), "self-cpu-ns/op")
		})
	}
}
