//go:build amd64 || arm64

package execrole

// Constants the syscall package lacks, the same on amd64 and arm64 (the architectures the
// project runs on; others take them from golang.org/x/sys/unix, sys_other.go). They are
// not taken from x/sys/unix here because that package is initialised late (see the
// package's doc).
const (
	oPath           = 0x200000 // O_PATH
	rlimitNproc     = 6        // RLIMIT_NPROC
	prSetNoNewPrivs = 38       // PR_SET_NO_NEW_PRIVS
	sigSetmask      = 2        // SIG_SETMASK
	xOK             = 1        // X_OK
	rOK             = 4        // R_OK
	atEmptyPath     = 0x1000   // AT_EMPTY_PATH
	prCapAmbient    = 47       // PR_CAP_AMBIENT
	// PR_CAP_AMBIENT_CLEAR_ALL
	prCapAmbientClearAll = 4
)
