package execrole

import "syscall"

// sysExecveat is execveat(2)'s number.
const sysExecveat = syscall.SYS_EXECVEAT
