// Package execfile writes files that this process is about to execute, such as test
// programs, copied submissions and generated player scripts.
//
// Writing an executable and running it from a process that starts other programs at the
// same time is racy: a fork on another goroutine copies the descriptor still open for
// writing, and until that child calls exec (which closes it) the kernel refuses to run the
// file with ETXTBSY, "text file busy". A grader that starts hundreds of programs in
// parallel hits this. The fix is the one syscall.ForkLock exists for: the file is opened,
// written and closed while holding ForkLock for reading, so no fork can happen while the
// descriptor is open.
package execfile

import (
	"bytes"
	"io"
	"os"
	"syscall"
)

// Write writes data to the file path, creating it with perm or truncating it, as
// os.WriteFile does but with no descriptor left to a concurrent fork.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFrom(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm, bytes.NewReader(data))
}

// WriteFrom opens path with flag and perm (as os.OpenFile does), copies r into it and
// closes it, with no fork in between. r should be quick to read (a file or a buffer): forks
// on other goroutines wait until it is done.
func WriteFrom(path string, flag int, perm os.FileMode, r io.Reader) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CopyExecuteOnly copies the program src to a new file dst that others may run but not
// read (mode 0711): a copy of the gauntlet binary for sandbox users, who must not read the
// suites in it.
func CopyExecuteOnly(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return WriteFrom(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o711, in)
}
