package execrole

import "syscall"

// System call numbers.
const (
	sysExecveat = syscall.SYS_EXECVEAT
	sysSetns    = syscall.SYS_SETNS
	// prlimit64(2)
	sysPrlimit64 = syscall.SYS_PRLIMIT64
)

// sysCloseRange is close_range(2).
const sysCloseRange = 436

// keyringTables are the keyring system calls (add_key, request_key, keyctl) of the AArch64
// table and of the 32-bit ARM one.
var keyringTables = []keyringCalls{
	{arch: 0xc00000b7, nrs: []uint32{217, 218, 219}},
	{arch: 0x40000028, nrs: []uint32{309, 310, 311}},
}
