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

// syscallTables are the AArch64 table and the 32-bit ARM one: keyrings add_key,
// request_key, keyctl; then clone, unshare, clone3.
var syscallTables = []syscallTable{
	{arch: 0xc00000b7, keyrings: []uint32{217, 218, 219}, clone: 220, unshare: 97, clone3: 435},
	{arch: 0x40000028, keyrings: []uint32{309, 310, 311}, clone: 120, unshare: 337, clone3: 435},
}
