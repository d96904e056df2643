package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The probe tells a cgroup a process can start in from a descriptor
// that is no cgroup, without running any program.
func TestCgroupProbe(t *testing.T) {
	cg, err := newCgroupTree("probe-test-" + strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Skipf("no cgroup v2 this process may create here: %v", err)
	}
	defer cg.close()
	if err := cg.probe(); err != nil {
		t.Fatalf("probe of a cgroup just made: %v", err)
	}
	procs, err := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
	if err != nil || len(procs) != 0 {
		t.Errorf("the probe left processes in the cgroup: %q %v", procs, err)
	}

	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	notCgroup := &cgroupTree{dir: os.DevNull, fd: int(f.Fd())}
	err = notCgroup.probe()
	if err == nil {
		t.Fatal("the probe accepted /dev/null as a cgroup")
	}
	t.Logf("/dev/null as a cgroup: %v", err)
}

// BenchmarkCgroupTree makes the commands' cgroup, probe included, and
// removes it: what the guardian's start adds where there is a cgroup.
func BenchmarkCgroupTree(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		cg, err := newCgroupTree("bench-" + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(i))
		if err != nil {
			b.Skipf("no cgroup v2 this process may create here: %v", err)
		}
		cg.close()
	}
}
