package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// machine describes where the figures were measured: they mean little
// without the CPU, the core count and how busy the machine was.
func machine() string {
	var parts []string
	if m := procField("/proc/cpuinfo", "model name"); m != "" {
		parts = append(parts, m)
	}
	parts = append(parts, fmt.Sprintf("%d CPUs (GOMAXPROCS %d)", runtime.NumCPU(), runtime.GOMAXPROCS(0)))
	if kb, err := strconv.ParseFloat(strings.Fields(procField("/proc/meminfo", "MemTotal") + " 0")[0], 64); err == nil && kb > 0 {
		parts = append(parts, fmt.Sprintf("%.0f GiB RAM", kb/(1<<20)))
	}
	parts = append(parts, runtime.GOOS+"/"+runtime.GOARCH, runtime.Version())
	if out, err := exec.Command("rg", "--version").Output(); err == nil {
		parts = append(parts, strings.SplitN(string(out), "\n", 2)[0])
	}
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		parts = append(parts, strings.TrimSpace(string(out)))
	}
	return strings.Join(parts, ", ")
}

// loadavg is the 1, 5 and 15 minute load averages, "" when unknown.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// procField returns the value of the first "key: value" line of a /proc
// file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
