// Package vmtest runs commands, and Go test binaries of this module, as root in a small
// VM whose kernel has cgroup v2 alone, so that the code for cgroup v2 machines (most of
// the machines users grade on: modern distributions, CI containers, clusters) is tested
// on one even where the host, like this project's CI, has cgroup v1.
//
// The VM is qemu (KVM where the host has it, else TCG, software emulation) booting a
// kernel from a folder (KernelVar; .ci/vm-kernel unpacks Debian's there, and the kernel's
// ELF image from it, which qemu starts straight: a boot in a third of the time) with an
// initramfs written here: a cpio archive holding the modules of 9p over virtio and a
// static init (./vminit). The init mounts the host's root folder read-only over 9p as
// the VM's root, empty tmpfs folders on /tmp, /run, /var/tmp and /root, the host folders
// a command shares writable at their own paths, and cgroup2 alone on /sys/fs/cgroup (no
// v1 hierarchy: every controller is v2's) with memory, pids and cpu enabled below the
// root; it runs the command as root (in the root group, or in a group below it made as
// systemd makes a service's) and reports its end on the serial console.
//
// The VM tests are slow (a boot under TCG takes seconds to tens of seconds) and skip
// unless EnableVar=1; with it they fail, never skip, when qemu or the kernel is missing.
package vmtest
