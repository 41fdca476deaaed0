//go:build linux

// Command vminit is the /init of internal/vmtest's VMs: built static (CGO_ENABLED=0) into
// the initramfs, it runs as PID 1, reads its spec (vmspec.File), loads the kernel modules
// of 9p over virtio, mounts the host's root folder read-only over 9p and makes it the root
// (MS_MOVE and chroot, as switch_root does, so that pivot_root works in the VM as on a
// real machine), mounts what a system has (proc, sysfs, devtmpfs, tmpfs folders, the
// writable shares) and cgroup v2 alone on /sys/fs/cgroup with the wanted controllers
// enabled for the groups below the root, runs the command as root and powers off, having
// written the command's end as a marker line on the console (vmspec).
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/internal/vmtest/vmspec"
)

func main() {
	console := openConsole()
	err := run(console)
	if err != nil {
		fmt.Fprintf(console, "\n%s%v\n", vmspec.ErrorPrefix, err)
	}
	powerOff()
}

// openConsole mounts devtmpfs on the initramfs's /dev for the console, which is where
// the init's output goes; it falls back to the standard error the kernel gave.
func openConsole() *os.File {
	os.MkdirAll("/dev", 0o755)
	unix.Mount("devtmpfs", "/dev", "devtmpfs", 0, "")
	if f, err := os.OpenFile("/dev/console", os.O_WRONLY, 0); err == nil {
		return f
	}
	return os.Stderr
}

func run(console *os.File) error {
	data, err := os.ReadFile(vmspec.File)
	if err != nil {
		return err
	}
	var spec vmspec.Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %v", vmspec.File, err)
	}
	for _, m := range spec.Modules {
		if err := loadModule(m); err != nil {
			return err
		}
	}
	if err := switchRoot(spec.RootTag); err != nil {
		return err
	}
	if err := mountSystem(spec); err != nil {
		return err
	}
	if err := enableControllers(spec.Controllers); err != nil {
		return err
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	end, err := runCommand(spec, console)
	if err != nil {
		return err
	}
	// Whatever the command left running goes with it; the shares are flushed and
	// unmounted before the line that tells the host it may read them.
	unix.Kill(-1, unix.SIGKILL)
	reapAll()
	unix.Sync()
	for i := len(spec.Shares) - 1; i >= 0; i-- {
		if err := unix.Unmount(spec.Shares[i].Path, 0); err != nil {
			fmt.Fprintf(console, "vminit: unmounting %s: %v\n", spec.Shares[i].Path, err)
		}
	}
	fmt.Fprintf(console, "\n%s\n", end.Line())
	return nil
}

// loadModule loads one module from its file; one built in or loaded already is fine.
func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.FinitModule(int(f.Fd()), "", 0); err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("loading module %s: %v", path, err)
	}
	return nil
}

// ninep is the 9p mount's options: the fast transport's largest messages.
const ninep = "trans=virtio,version=9p2000.L,msize=512000"

// switchRoot mounts the host's root folder on /newroot, moves that mount onto / and
// chroots into it: the root is then a mount of its own with a parent (the initramfs),
// which pivot_root requires of the root it is called from; the initramfs itself is not.
func switchRoot(tag string) error {
	if err := os.MkdirAll("/newroot", 0o755); err != nil {
		return err
	}
	// The virtio device may be probed a moment after its module is loaded.
	var err error
	for try := 0; try < 50; try++ {
		if err = unix.Mount(tag, "/newroot", "9p", unix.MS_RDONLY, ninep+",cache=loose"); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("mounting the host's root (9p tag %s): %v", tag, err)
	}
	unix.Unmount("/dev", unix.MNT_DETACH)
	if err := unix.Chdir("/newroot"); err != nil {
		return err
	}
	if err := unix.Mount(".", "/", "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("moving the root: %v", err)
	}
	if err := unix.Chroot("."); err != nil {
		return fmt.Errorf("chroot: %v", err)
	}
	return unix.Chdir("/")
}

// mountSystem mounts what the command expects of a Linux system, cgroup v2 alone (no v1
// hierarchy at all), empty writable folders, and the host's writable shares.
func mountSystem(spec vmspec.Spec) error {
	type mnt struct{ src, dir, fstype, data string }
	mounts := []mnt{
		{"proc", "/proc", "proc", ""},
		{"sysfs", "/sys", "sysfs", ""},
		{"cgroup2", "/sys/fs/cgroup", "cgroup2", ""},
		{"devtmpfs", "/dev", "devtmpfs", ""},
		{"devpts", "/dev/pts", "devpts", "newinstance,ptmxmode=0666"},
		{"tmpfs", "/dev/shm", "tmpfs", "mode=1777"},
		{"tmpfs", "/tmp", "tmpfs", "mode=1777"},
		{"tmpfs", "/var/tmp", "tmpfs", "mode=1777"},
		{"tmpfs", "/run", "tmpfs", "mode=755"},
		{"tmpfs", "/root", "tmpfs", "mode=700"},
	}
	for _, m := range mounts {
		if strings.HasPrefix(m.dir, "/dev/") {
			os.Mkdir(m.dir, 0o755)
		}
		if err := unix.Mount(m.src, m.dir, m.fstype, 0, m.data); err != nil {
			return fmt.Errorf("mounting %s on %s: %v", m.fstype, m.dir, err)
		}
	}
	for _, s := range spec.Shares {
		if err := os.MkdirAll(s.Path, 0o755); err != nil {
			return fmt.Errorf("share %s: %v (its folder must be under a writable folder of the VM: /tmp, /run, /var/tmp, /root)", s.Path, err)
		}
		if err := unix.Mount(s.Tag, s.Path, "9p", 0, ninep+",cache=mmap"); err != nil {
			return fmt.Errorf("mounting the share %s (9p tag %s): %v", s.Path, s.Tag, err)
		}
	}
	return nil
}

// enableControllers gives the groups below the root each wanted controller the kernel
// has (cgroup.controllers lists them).
func enableControllers(want []string) error {
	return enableControllersIn("/sys/fs/cgroup", want)
}

// enableControllersIn gives the groups below dir each wanted controller dir has.
func enableControllersIn(dir string, want []string) error {
	have, err := os.ReadFile(dir + "/cgroup.controllers")
	if err != nil {
		return err
	}
	for _, c := range want {
		if !contains(strings.Fields(string(have)), c) {
			continue
		}
		if err := os.WriteFile(dir+"/cgroup.subtree_control", []byte("+"+c), 0); err != nil {
			return fmt.Errorf("enabling the %s controller below %s: %v", c, dir, err)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loopbackUp brings up the loopback interface, which tests reach their own services on.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing up lo: %v", err)
	}
	return nil
}

// runCommand starts the command in a session of its own and waits for it, reaping every
// orphan that comes to PID 1 meanwhile.
func runCommand(spec vmspec.Spec, console *os.File) (vmspec.End, error) {
	out, err := os.OpenFile(spec.Output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return vmspec.End{}, err
	}
	defer out.Close()
	null, err := os.Open("/dev/null")
	if err != nil {
		return vmspec.End{}, err
	}
	defer null.Close()
	dir := spec.Dir
	if dir == "" {
		dir = "/"
	}
	sys := &syscall.SysProcAttr{Setsid: true}
	if spec.Cgroup != "" {
		group, err := makeGroup(spec.Cgroup, spec.Controllers)
		if err != nil {
			return vmspec.End{}, err
		}
		defer group.Close()
		sys.UseCgroupFD, sys.CgroupFD = true, int(group.Fd())
	}
	fmt.Fprintf(console, "\n%s\n", vmspec.Started)
	pid, err := syscall.ForkExec(spec.Path, append([]string{spec.Path}, spec.Args...), &syscall.ProcAttr{
		Dir:   dir,
		Env:   spec.Env,
		Files: []uintptr{null.Fd(), out.Fd(), out.Fd()},
		Sys:   sys,
	})
	if err != nil {
		return vmspec.End{}, fmt.Errorf("starting %s: %v", spec.Path, err)
	}
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return vmspec.End{}, fmt.Errorf("waiting for %s: %v", spec.Path, err)
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return vmspec.End{Status: -1, Signal: int(ws.Signal())}, nil
		}
		return vmspec.End{Status: ws.ExitStatus()}, nil
	}
}

// makeGroup makes the group at path below the root group, each group above it giving
// the groups below it the wanted controllers it has, and opens it (for clone3's
// CLONE_INTO_CGROUP: the command starts in it).
func makeGroup(path string, controllers []string) (*os.File, error) {
	dir := "/sys/fs/cgroup"
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("the group %q is not a path below the root group", path)
		}
		dir += "/" + p
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return nil, err
		}
		if i < len(parts)-1 {
			if err := enableControllersIn(dir, controllers); err != nil {
				return nil, err
			}
		}
	}
	return os.Open(dir)
}

// reapAll waits for every child left until none is.
func reapAll() {
	for {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, 0, nil); err != nil && err != unix.EINTR {
			return
		}
	}
}

// powerOff ends the VM (qemu runs with -no-reboot, so a panic ends it too).
func powerOff() {
	unix.Sync()
	unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	// Not reached; were it, PID 1's exit panics the kernel, which ends the VM as well.
	os.Exit(1)
}
