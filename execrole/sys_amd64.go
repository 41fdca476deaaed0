package execrole

// System call numbers the syscall package lacks on amd64.
const (
	sysExecveat  = 322 // execveat(2)
	sysSetns     = 308 // setns(2)
	sysPrlimit64 = 302 // prlimit64(2)
)

// sysCloseRange is close_range(2).
const sysCloseRange = 436

// keyringTables are the keyring system calls (add_key, request_key, keyctl) of the x86-64
// table (and of x32's, whose numbers carry bit 30), and of the i386 one.
var keyringTables = []keyringCalls{
	{arch: 0xc000003e, mask: 0xbfffffff, nrs: []uint32{248, 249, 250}},
	{arch: 0x40000003, nrs: []uint32{286, 287, 288}},
}
