//go:build linux && (amd64 || arm64)

package sandbox

import "golang.org/x/sys/unix"

// rule sends the system call nr to a label: a return or a check of its
// arguments.
type rule struct {
	nr uint32
	to label
}

// systemCalls change the machine rather than files, or reach other
// processes or the kernel's attack surface; no command ply runs needs
// them. Most need a capability that the confined command no longer has,
// but denying them here does not rest on that. Each is denied in both
// profiles.
var systemCalls = append([]uint32{
	unix.SYS_REBOOT, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	// Mounts: Landlock denies them already; the new mount API too.
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD,
	unix.SYS_SYSLOG, unix.SYS_VHANGUP, unix.SYS_FANOTIFY_INIT,
	// Opening a file by handle walks past every path check.
	unix.SYS_OPEN_BY_HANDLE_AT,
	// The kernel's largest attack surfaces, and the keyrings every
	// process of the user shares.
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	// System V IPC objects outlive the command and are shared with every
	// process of the machine: none may be made, found or used.
	unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL,
	unix.SYS_SEMGET, unix.SYS_SEMOP, unix.SYS_SEMTIMEDOP, unix.SYS_SEMCTL,
	unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
	// Setting inode flags (chattr), like the ioctls below.
	unix.SYS_FILE_SETATTR,
}, archSystemCalls...)

// xattrCalls write extended attributes, POSIX ACLs among them: a change
// of permissions Landlock does not see. Denied in both profiles with
// EOPNOTSUPP, the answer of a file system without them, which copying
// tools (cp -a, rsync -X) pass over quietly.
var xattrCalls = []uint32{
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}

// metadataCalls change a file's mode, owner or times, which Landlock does
// not cover: denied to read-only commands only. Under --sandbox, chmod +x
// and touch in the workspace are ordinary, the system call cannot tell
// the workspace from elsewhere, and without capabilities a command can
// change only files its user owns.
var metadataCalls = append([]uint32{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_UTIMENSAT,
}, archMetadataCalls...)

// isolationCalls are denied to read-only commands only: namespaces (a
// browser's own sandbox needs them under --sandbox; Landlock and the
// filter hold inside them) and tracing or reading other processes
// (debuggers under --sandbox; Landlock already limits them to the
// command's own processes).
var isolationCalls = []uint32{
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
}

// deniedIoctls are the ioctl requests denied in both profiles: setting
// inode flags (chattr: immutable, append-only, no-dump) and typing into
// a terminal (TIOCSTI).
var deniedIoctls = []uint32{unix.FS_IOC_SETFLAGS, fsIoc32Setflags, fsIocFssetxattr, unix.TIOCSTI}

// filterRules returns the filter's list of system calls for spec, each
// with where it goes.
func filterRules(spec filterSpec) []rule {
	var rs []rule
	add := func(to label, nrs ...uint32) {
		for _, nr := range nrs {
			rs = append(rs, rule{nr, to})
		}
	}
	add(lEPERM, systemCalls...)
	add(lENOTSUP, xattrCalls...)
	add(lENOSYS, unix.SYS_IO_URING_SETUP)
	add(lOwnPID, unix.SYS_PRLIMIT64, unix.SYS_SCHED_SETAFFINITY, unix.SYS_SCHED_SETSCHEDULER,
		unix.SYS_SCHED_SETPARAM, unix.SYS_SCHED_SETATTR)
	add(lSetpriority, unix.SYS_SETPRIORITY)
	add(lIoprio, unix.SYS_IOPRIO_SET)
	add(lIoctl, unix.SYS_IOCTL)
	if !spec.network {
		add(lEACCES, unix.SYS_SOCKET)
		add(lSocketpair, unix.SYS_SOCKETPAIR)
	}
	if spec.readOnly {
		add(lEPERM, metadataCalls...)
		add(lEPERM, isolationCalls...)
		add(lClone, unix.SYS_CLONE)
		// clone3 passes its flags in memory the filter cannot read:
		// reported missing, so that the C library falls back to clone.
		add(lENOSYS, unix.SYS_CLONE3)
	}
	return rs
}
