package execrole

// sysExecveat is execveat(2)'s number, which the syscall package lacks on amd64.
const sysExecveat = 322
