package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// dropCapabilities empties the calling thread's capability sets, so that
// a command started as root has none of root's powers beyond owning
// files: no reading others' files (CAP_DAC_*), no tracing (CAP_SYS_PTRACE),
// no giving files away (CAP_CHOWN), nothing system-wide. The bounding set
// goes first, while CAP_SETPCAP still allows it, so that executing a
// program cannot give any back; no_new_privs, already set, keeps setuid
// and file capabilities from doing so either. A thread without
// CAP_SETPCAP (not root) cannot shrink its bounding set and needs not:
// with empty sets and no_new_privs, exec grants nothing.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[unix.CAP_SETPCAP/32].Effective&(1<<(unix.CAP_SETPCAP%32)) != 0 {
		last := capLastCap()
		for c := 0; c <= last; c++ {
			err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			if err != nil {
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// capLastCap is the kernel's highest capability number, read once; when
// it cannot be read, 63, and PR_CAPBSET_DROP's EINVAL ends the loop.
var capLastCap = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 63
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 || n > 63 {
		return 63
	}
	return n
})
