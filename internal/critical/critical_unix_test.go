//go:build unix

package critical

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
)

// A SIGHUP that arrives in a critical section is told to onSignal and
// ends the process only when the section ends.
func TestSIGHUPWaitsForTheSection(t *testing.T) {
	skipIfHUPIgnored(t)
	if marker := os.Getenv("CRITICAL_CHILD_MARKER"); marker != "" {
		told := make(chan os.Signal, 1)
		leave := Enter(func(s os.Signal) { told <- s })
		syscall.Kill(os.Getpid(), syscall.SIGHUP)
		if s := <-told; s != syscall.SIGHUP {
			os.Exit(3)
		}
		os.WriteFile(marker, nil, 0o600) // still alive after the signal
		leave()
		select {} // the SIGHUP delivered again ends the process here
	}
	marker := filepath.Join(t.TempDir(), "marker")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGHUPWaitsForTheSection$")
	cmd.Env = append(os.Environ(), "CRITICAL_CHILD_MARKER="+marker)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child ended with %v", err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGHUP {
		t.Fatalf("child ended with %v, want by SIGHUP", ws)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the SIGHUP ended the child inside the section")
	}
}

// Wait returns at once with no section held, and once the last one ends.
func TestWait(t *testing.T) {
	Wait()
	a, b := Enter(nil), Enter(nil)
	done := make(chan struct{})
	go func() { Wait(); close(done) }()
	a()
	select {
	case <-done:
		t.Fatal("Wait returned with a section still held")
	default:
	}
	b()
	<-done
}

// skipIfHUPIgnored skips where this process was started with SIGHUP
// ignored (under nohup): its children inherit that, and a SIGHUP rightly
// ends none of them.
func skipIfHUPIgnored(t *testing.T) {
	t.Helper()
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("SIGHUP is ignored in this process (started under nohup?): no child can be ended by it")
	}
}
