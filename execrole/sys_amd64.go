package execrole

// System call numbers the syscall package lacks on amd64.
const (
	sysExecveat  = 322 // execveat(2)
	sysSetns     = 308 // setns(2)
	sysPrlimit64 = 302 // prlimit64(2)
)

// sysCloseRange is close_range(2).
const sysCloseRange = 436

// syscallTables are the x86-64 table (and x32's, whose numbers carry bit 30), and the i386
// one: keyrings add_key, request_key, keyctl; then clone, unshare, clone3.
var syscallTables = []syscallTable{
	{arch: 0xc000003e, mask: 0xbfffffff, keyrings: []uint32{248, 249, 250}, clone: 56, unshare: 272, clone3: 435},
	{arch: 0x40000003, keyrings: []uint32{286, 287, 288}, clone: 120, unshare: 310, clone3: 435},
}
