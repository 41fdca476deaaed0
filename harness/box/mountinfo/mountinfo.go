// Package mountinfo reads the mount table of this process's mount namespace
// (/proc/self/mountinfo): the cgroup package finds its controllers there, and the sandbox
// the memory folders that graders gone left mounted.
package mountinfo

import (
	"os"
	"slices"
	"strings"
)

// A Mount is one line of the table.
type Mount struct {
	Point  string // the mount point, as the kernel writes it (a space as \040)
	FSType string // the file system's type: "tmpfs", "cgroup", "cgroup2"...
	Super  string // the super block's options (a v1 cgroup's controllers among them)
}

// Read returns the mounts of this process's mount namespace.
func Read() ([]Mount, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return Parse(string(data)), nil
}

// Parse reads the lines of a mount table; a line it cannot read is left out. In
// "36 35 98:0 / /mnt/point rw,noatime shared:1 - tmpfs tmpfs rw,size=64k" the fifth field is
// the mount point and, after the optional fields that "-" ends, come the type, the source
// and the super block's options.
func Parse(table string) []Mount {
	var mounts []Mount
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if len(f) < 5 || sep < 5 || sep+1 >= len(f) {
			continue
		}
		m := Mount{Point: f[4], FSType: f[sep+1]}
		if sep+3 < len(f) {
			m.Super = f[sep+3]
		}
		mounts = append(mounts, m)
	}
	return mounts
}
