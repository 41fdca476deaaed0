package execrole

import "syscall"

// System call numbers.
const (
	sysExecveat = syscall.SYS_EXECVEAT
	sysSetns    = syscall.SYS_SETNS
)
