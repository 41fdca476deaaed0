package mountinfo

import (
	"slices"
	"testing"
)

// The fields that follow the optional ones come after "-", however many of those there are;
// a point with a space keeps the kernel's \040; a line too short is left out.
func TestParse(t *testing.T) {
	table := "22 1 0:20 / /run/gtmp rw,nosuid shared:3 master:1 - tmpfs tmpfs rw,size=65536k\n" +
		"30 24 0:26 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n" +
		"31 24 0:27 / /mnt/with\\040space rw - ext4 /dev/vdb rw\n" +
		"32 24 0:28 / /short rw - tmpfs\n" +
		"garbage\n"
	want := []Mount{
		{Point: "/run/gtmp", FSType: "tmpfs", Super: "rw,size=65536k"},
		{Point: "/sys/fs/cgroup/memory", FSType: "cgroup", Super: "rw,memory"},
		{Point: `/mnt/with\040space`, FSType: "ext4", Super: "rw"},
		{Point: "/short", FSType: "tmpfs"},
	}
	if got := Parse(table); !slices.Equal(got, want) {
		t.Errorf("Parse:\n%+v\nwant\n%+v", got, want)
	}
}

// This machine's table has its root.
func TestRead(t *testing.T) {
	mounts, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(mounts, func(m Mount) bool { return m.Point == "/" }) {
		t.Errorf("no mount on / in %+v", mounts)
	}
}
