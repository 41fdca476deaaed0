package execrole

// System call numbers the syscall package lacks on amd64.
const (
	sysExecveat = 322 // execveat(2)
	sysSetns    = 308 // setns(2)
)
