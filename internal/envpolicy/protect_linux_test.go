package envpolicy

import (
	"testing"

	"golang.org/x/sys/unix"
)

// After Protect, the kernel treats ply as not dumpable: its /proc files
// (environ, mem) belong to root, so a command of the same user cannot
// read the credentials still in ply's memory and initial environment.
func TestProtectClearsDumpable(t *testing.T) {
	if err := Protect(); err != nil {
		t.Fatal(err)
	}
	d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil || d != 0 {
		t.Fatalf("dumpable = %d, %v; want 0", d, err)
	}
}
