//go:build !amd64 && !arm64

package execrole

import "golang.org/x/sys/unix"

// The constants sys_linux.go gives amd64 and arm64, from golang.org/x/sys/unix for the
// other architectures (where some differ).
const (
	oPath           = unix.O_PATH
	rlimitNproc     = unix.RLIMIT_NPROC
	prSetNoNewPrivs = unix.PR_SET_NO_NEW_PRIVS
	sigSetmask      = unix.SIG_SETMASK
	xOK             = unix.X_OK
	rOK             = unix.R_OK
	atEmptyPath     = unix.AT_EMPTY_PATH
	sysExecveat     = unix.SYS_EXECVEAT
	sysSetns        = unix.SYS_SETNS
	sysPrlimit64    = unix.SYS_PRLIMIT64
	prCapAmbient    = unix.PR_CAP_AMBIENT
	// PR_CAP_AMBIENT_CLEAR_ALL
	prCapAmbientClearAll = unix.PR_CAP_AMBIENT_CLEAR_ALL
)

// sysCloseRange is close_range(2).
const sysCloseRange = unix.SYS_CLOSE_RANGE

// syscallTables is empty: on these architectures neither keyrings nor user namespaces are
// denied by a filter (docs/security.md).
var syscallTables []syscallTable
