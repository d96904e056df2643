package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkRuleset measures the Landlock part of a confined start, which
// grows with the number of paths: for a read-only command, building its
// read layer anew (readlayer-build, once per change) and what each
// command costs with the layer kept (readonly: its key, adding the
// temporary directory, the write layer); for --sandbox, its one ruleset.
func BenchmarkRuleset(b *testing.B) {
	abi, err := Available()
	if err != nil {
		b.Skip(err)
	}
	ro := ReadOnlyPolicy(b.TempDir())
	ro.ReadableDirs = []string{b.TempDir()}
	etcReadable() // found once per process, not per command
	cfg, rules, _ := readRuleset(ro, nil)
	kept, _, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(kept)
	build := func(p Policy) {
		cfg, rules := ruleset(p, abi)
		fd, _, err := cfg.NewRulesetFD(rules...)
		if err != nil {
			b.Fatal(err)
		}
		_ = unix.Close(fd)
	}
	for _, bc := range []struct {
		name string
		f    func()
	}{
		{"readlayer-build", func() {
			cfg, rules, _ := readRuleset(ro, nil)
			fd, _, err := cfg.NewRulesetFD(rules...)
			if err != nil {
				b.Fatal(err)
			}
			_ = unix.Close(fd)
		}},
		{"readonly", func() {
			_, _, _ = readRuleset(ro, nil)
			if err := addReadable(kept, ro.WritableDirs[0]); err != nil {
				b.Fatal(err)
			}
			build(ro)
		}},
		{"sandbox", func() { build(Policy{WritableDirs: ro.ReadableDirs}) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			self := selfCPU()
			for b.Loop() {
				bc.f()
			}
			b.ReportMetric(float64((selfCPU()-self).Nanoseconds())/float64(b.N), "self-cpu-ns/op")
		})
	}
}
