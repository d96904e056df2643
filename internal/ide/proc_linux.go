package ide

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// parentProcess reads a process's parent and command name from /proc.
func parentProcess(pid int) (int, string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", err
	}
	return parseStat(data)
}

// parseStat reads the parent and the name from a /proc/PID/stat line:
// "pid (comm) state ppid ...", where comm may hold spaces and
// parentheses, so it ends at the last ')'.
func parseStat(data []byte) (int, string, error) {
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return 0, "", errors.New("malformed process status")
	}
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 2 {
		return 0, "", errors.New("malformed process status")
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return 0, "", fmt.Errorf("malformed process status: %w", err)
	}
	return ppid, string(data[open+1 : end]), nil
}
