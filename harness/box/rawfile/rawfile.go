// Package rawfile reads and writes the kernel's small pseudo-files (those of /proc, of a
// cgroup) and lists their folders with raw system calls. os.File registers every file it
// opens with the runtime's poller, and these files all say they can be polled, so through
// os each open and close also adds and removes an epoll entry: in a profile of a boxed
// trivial case that was a third of the cost of the harness's reads of /proc.
package rawfile

import (
	"os"
	"syscall"
)

// Read returns the whole file at path, read into buf (grown when the file does not fit;
// buf may be nil). Errors are *os.PathError, with the system call's errno inside.
func Read(path string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if cap(buf) == 0 {
		buf = make([]byte, 0, 512)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// Write writes data to the existing file at path in one write, as the kernel's files
// expect (a value a write).
func Write(path string, data []byte) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	for {
		n, err := syscall.Write(fd, data)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return &os.PathError{Op: "write", Path: path, Err: err}
		case n < len(data):
			return &os.PathError{Op: "write", Path: path, Err: syscall.EIO}
		}
		return nil
	}
}

// Names lists the names in the folder at path ("." and ".." left out).
func Names(path string) ([]string, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var names []string
	buf := make([]byte, 8192)
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: path, Err: err}
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
}
