// Package vmspec is what the host side of internal/vmtest hands the VM's init
// (internal/vmtest/vminit), and what the init says back: the spec, a JSON file at the top
// of the initramfs, and the marker lines the init writes to the serial console. It is a
// package of its own so that the init, a static program of its own, shares these with the
// host without linking the host's test helpers.
package vmspec

import (
	"fmt"
	"strconv"
	"strings"
)

// File is where the spec lies in the initramfs.
const File = "/vmtest.json"

// Spec tells the init what to set up and what to run.
type Spec struct {
	// Modules are the kernel modules to load, in order (paths in the initramfs).
	Modules []string
	// RootTag is the mount tag of the host's root folder, shared read-only: it becomes
	// the VM's root.
	RootTag string
	// Shares are host folders shared writable, each mounted at its host path.
	Shares []Share
	// Controllers are the cgroup v2 controllers to enable in the root group's
	// cgroup.subtree_control, each where the kernel has it.
	Controllers []string

	// The command: its absolute path, its arguments (without argv[0]), its whole
	// environment and its working folder. Its standard input is /dev/null; its standard
	// output and error both go to Output, a file in one of the shares.
	Path   string
	Args   []string
	Env    []string
	Dir    string
	Output string
	// Cgroup is the command's group, a path below the root group ("" for the root
	// group itself): made, with Controllers enabled in each group above it, and the
	// command started in it.
	Cgroup string
}

// Share is one writable folder of the host.
type Share struct {
	Tag  string
	Path string
}

// The markers are whole lines of the console, written in one write each.
const (
	// Started: the VM is set up and the command is about to start.
	Started = "VMTEST-START"
	// ExitPrefix starts the line of the command's end: "VMTEST-EXIT 3" for an exit
	// status, "VMTEST-EXIT signal 9" for a death by a signal.
	ExitPrefix = "VMTEST-EXIT "
	// ErrorPrefix starts the line of a set-up that failed; the command never ran.
	ErrorPrefix = "VMTEST-ERROR "
)

// End is how the command ended.
type End struct {
	Status int // exit status, or -1 for a death by a signal
	Signal int // the signal's number, or 0
}

// Line is the console line of e, without its newline.
func (e End) Line() string {
	if e.Signal != 0 {
		return ExitPrefix + "signal " + strconv.Itoa(e.Signal)
	}
	return ExitPrefix + strconv.Itoa(e.Status)
}

// ParseEnd reads a line that Line wrote (a carriage return at its end is ignored, as a
// serial console adds one); ok is false for any other line.
func ParseEnd(line string) (e End, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimRight(line, "\r"), ExitPrefix)
	if !found {
		return End{}, false
	}
	if sig, isSig := strings.CutPrefix(rest, "signal "); isSig {
		n, err := strconv.Atoi(sig)
		if err != nil || n <= 0 {
			return End{}, false
		}
		return End{Status: -1, Signal: n}, true
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n > 255 {
		return End{}, false
	}
	return End{Status: n}, true
}

// String says how the command ended, for messages.
func (e End) String() string {
	if e.Signal != 0 {
		return fmt.Sprintf("killed by signal %d", e.Signal)
	}
	return fmt.Sprintf("exit status %d", e.Status)
}
