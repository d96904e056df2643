//go:build !linux

package ide

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
)

// parentProcess asks ps for a process's parent and command name.
func parentProcess(pid int) (int, string, error) {
	out, err := exec.Command("ps", "-o", "ppid=,comm=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0, "", err
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return 0, "", errors.New("ps said nothing of the process")
	}
	ppid, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, "", err
	}
	return ppid, strings.Join(f[1:], " "), nil
}
