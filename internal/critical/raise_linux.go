package critical

import (
	"runtime"
	"syscall"
)

// raise sends sig to this process again. Once no channel is notified of
// it, the runtime gives it its default action: the process ends by it.
// It is sent to the calling thread, whose return from the system call
// runs the handler, so the process ends before raise returns instead of
// racing the code after it to exit first.
func raise(sig syscall.Signal) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), sig)
}
